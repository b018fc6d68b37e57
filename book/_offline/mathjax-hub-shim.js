// ipywidgets 8's HTML manager typesets widget labels with MathJax 2's API,
//   MathJax.Hub.Queue(["Typeset", MathJax.Hub, element])
// but the book loads MathJax 3, which has no Hub: every widget with a label would throw.
// MathJax 3 loads this file as a component (mathjax3_config.loader in book/_config.yml), so
// window.MathJax is already the MathJax 3 object here; we give it the one method the widgets call.
(function () {
  "use strict";
  var mathjax = window.MathJax;

  function typeset(element) {
    // MathJax 3 typesets one request at a time: chain onto its startup promise, as its docs say.
    mathjax.startup.promise = mathjax.startup.promise.then(function () {
      return mathjax.typesetPromise(element ? [element] : undefined);
    });
  }

  mathjax.Hub = {
    Queue: function () {
      Array.prototype.forEach.call(arguments, function (job) {
        if (Array.isArray(job) && job[0] === "Typeset") {
          typeset(job[2]);
        } else if (typeof job === "function") {
          job();
        }
      });
    },
  };
})();
