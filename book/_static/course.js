/* course_rnn: mark inline math wider than its line (course.css lets it scroll instead of being
 * clipped). MathJax 3 cannot wrap inline math; on a phone a long formula is otherwise cut off. */
(function () {
  "use strict";
  function markWideMath() {
    document.querySelectorAll(".bd-article span.math").forEach(span => {
      const math = span.querySelector("mjx-math");
      if (!math) return;
      span.classList.toggle("course-wide-math",
        math.getBoundingClientRect().width > span.getBoundingClientRect().width + 1);
    });
  }
  function start() {
    const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset || Promise.resolve()).then(markWideMath);
    window.addEventListener("resize", markWideMath);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
