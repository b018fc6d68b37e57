/* course_rnn: what the site adds to the theme's behaviour (Jupyter Book loads every script in
 * _static/ on every page). Nothing here fetches anything from another host.
 *
 * 1. Inline math wider than its line is marked (course.css lets it scroll instead of being
 *    clipped). MathJax 3 cannot wrap inline math; on a phone a long formula is otherwise cut off.
 * 2. Every figure opens full size. A chapter's figures are drawn for a desktop column: on a
 *    390 px phone a three-panel figure is shown at a quarter of its size, its labels ≈ 3 px.
 *    Each figure becomes a link to its image; a tap opens it in a full-screen viewer at its own
 *    size (labels as drawn, ≈ 10–14 px), scrolled sideways and down with a finger or pinched;
 *    a tap on the figure switches to fit-the-screen and back. ✕, Escape and the browser's Back
 *    close it. The page itself keeps the whole figure in view, in the flow of the text.
 * 3. The contents drawers (☰ and the page's outline on a phone or tablet) close when a link in
 *    them is tapped, and are closed when a reader comes back to a page with Back.
 * 4. Search results show an excerpt of the page's text around the match: from the article, not
 *    from the page's own table of contents or buttons, with formulas written out readably
 *    (a^n b^n as aⁿbⁿ, not as raw TeX).
 */
(function () {
  "use strict";

  // ---- 1. wide inline math -----------------------------------------------------------------
  function markWideMath() {
    document.querySelectorAll(".bd-article span.math").forEach(span => {
      const math = span.querySelector("mjx-math");
      if (!math) return;
      span.classList.toggle("course-wide-math",
        math.getBoundingClientRect().width > span.getBoundingClientRect().width + 1);
    });
  }

  // ---- 2. figures open full size -------------------------------------------------------------
  const IMAGE_FILE = /\.(png|jpe?g|gif|svg|webp)(\?.*)?$/i;
  let viewer = null;

  // The size a figure was drawn at, in CSS px: its width attribute (a high-density image) or
  // its pixels.
  const fullWidth = img => +img.getAttribute("width") || img.naturalWidth;

  function buildViewer() {
    const dialog = document.createElement("dialog");
    dialog.className = "course-figure-viewer";
    dialog.setAttribute("aria-label", "Figure at full size");
    dialog.innerHTML =
      '<div class="course-figure-viewer-bar">' +
      '<button type="button" class="course-figure-viewer-fit"></button>' +
      '<button type="button" class="course-figure-viewer-close" aria-label="Close the figure"' +
      ' title="Close (Esc)">✕</button></div>' +
      '<div class="course-figure-viewer-scroll"><img alt=""></div>';
    document.body.append(dialog);
    const img = dialog.querySelector("img");
    const fit = dialog.querySelector(".course-figure-viewer-fit");
    const setFit = on => {
      dialog.classList.toggle("course-fit", on);
      fit.textContent = on ? "Full size" : "Fit to screen";
    };
    const toggle = () => setFit(!dialog.classList.contains("course-fit"));
    img.addEventListener("click", toggle);
    fit.addEventListener("click", toggle);
    dialog.querySelector(".course-figure-viewer-close").addEventListener("click", () => closeViewer());
    dialog.addEventListener("cancel", event => { event.preventDefault(); closeViewer(); });  // Esc
    dialog.addEventListener("close", () => document.documentElement.classList.remove("course-viewer-open"));
    return {dialog, img, fit, setFit};
  }

  function openViewer(source) {
    viewer = viewer || buildViewer();
    const {dialog, img, fit, setFit} = viewer;
    img.src = source.currentSrc || source.src;
    img.alt = source.alt;
    img.style.width = `${fullWidth(source)}px`;
    const wider = fullWidth(source) > document.documentElement.clientWidth;
    fit.hidden = !wider;  // a figure that fits the screen at full size needs no switch
    setFit(false);
    document.documentElement.classList.add("course-viewer-open");
    dialog.showModal();
    dialog.querySelector(".course-figure-viewer-scroll").scrollTo(0, 0);
    // Back closes the viewer, as it closes a photo on a phone, instead of leaving the page.
    history.pushState({courseFigure: true}, "");
  }

  let ownBack = false;  // the popstate of our own history.back() must not close a viewer reopened since
  function closeViewer(fromHistory) {
    if (!viewer || !viewer.dialog.open) return;
    viewer.dialog.close();
    if (!fromHistory && history.state && history.state.courseFigure) {
      ownBack = true;
      history.back();
    }
  }
  window.addEventListener("popstate", () => {
    if (ownBack) ownBack = false;
    else closeViewer(true);
  });

  function linkFigures() {
    document.querySelectorAll(".bd-article img").forEach(img => {
      if (img.closest(".course-figure-link, .rnn-stepper, .rnn-playground")) return;
      const link = img.closest("a[href]");
      if (link) {  // a figure already linked: open it in the viewer if the link is its image
        if (IMAGE_FILE.test(link.getAttribute("href"))) link.classList.add("course-figure-link");
        return;
      }
      const wrap = document.createElement("a");
      wrap.className = "course-figure-link";
      wrap.href = img.getAttribute("src");
      wrap.title = "Open the figure at full size";
      img.replaceWith(wrap);
      wrap.append(img);
      const badge = document.createElement("span");
      badge.className = "course-figure-zoom";
      badge.setAttribute("aria-hidden", "true");
      badge.innerHTML = '<svg viewBox="0 0 16 16" width="16" height="16"><circle cx="6.5" ' +
        'cy="6.5" r="4.5"/><path d="M10 10l4.5 4.5M6.5 4.5v4M4.5 6.5h4"/></svg>';
      wrap.append(badge);
    });
    markShrunkFigures();
  }

  // The magnifier shows on figures drawn smaller than their full size (on a phone, nearly all).
  function markShrunkFigures() {
    document.querySelectorAll(".course-figure-link img").forEach(img => {
      const shown = img.getBoundingClientRect().width;
      img.closest(".course-figure-link").classList.toggle(
        "course-shrunk", img.naturalWidth > 0 && shown < 0.8 * fullWidth(img));
    });
  }

  document.addEventListener("click", event => {
    const link = event.target.closest && event.target.closest("a.course-figure-link");
    // a new tab (Ctrl, ⌘, Shift, middle button) still gets the plain image
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey ||
        event.altKey) return;
    const img = link.querySelector("img");
    if (!img || !window.HTMLDialogElement) return;
    event.preventDefault();
    openViewer(img);
  });

  // ---- 3. the drawers close after a tap on a link --------------------------------------------
  const DRAWERS = ["pst-primary-sidebar-checkbox", "pst-secondary-sidebar-checkbox"];

  // A drawer is open over the text when its checkbox is checked and its overlay (the dimmed
  // page behind it) is shown. On a desktop the checkbox of ☰ means "sidebar collapsed" and has
  // no overlay: it is left alone.
  function closeDrawers() {
    for (const id of DRAWERS) {
      const box = document.getElementById(id);
      const overlay = box && box.nextElementSibling;
      if (box && box.checked && overlay && overlay.getBoundingClientRect().width > 0) {
        box.checked = false;
      }
    }
  }
  document.addEventListener("click", event => {
    const link = event.target.closest && event.target.closest("a[href]");
    if (link && link.closest(".bd-sidebar-primary, .bd-sidebar-secondary")) closeDrawers();
  });
  // Back to a page (from the browser's cache, or with its form state restored) shows the text,
  // not the drawer a reader left it from.
  window.addEventListener("pageshow", closeDrawers);

  // ---- 4. search excerpts ------------------------------------------------------------------
  const TEX_SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", eta: "η",
    theta: "θ", lambda: "λ", mu: "μ", pi: "π", rho: "ρ", sigma: "σ", tau: "τ", phi: "φ",
    varphi: "φ", psi: "ψ", omega: "ω", Delta: "Δ", Sigma: "Σ", Omega: "Ω", le: "≤", leq: "≤",
    ge: "≥", geq: "≥", ne: "≠", neq: "≠", approx: "≈", sim: "∼", to: "→", rightarrow: "→",
    leftarrow: "←", mapsto: "↦", times: "×", cdot: "·", odot: "⊙", otimes: "⊗", circ: "∘",
    in: "∈", notin: "∉", subset: "⊂", cup: "∪", cap: "∩", infty: "∞", sum: "Σ", prod: "Π",
    partial: "∂", nabla: "∇", ldots: "…", dots: "…", cdots: "⋯", pm: "±", mid: "|",
    langle: "⟨", rangle: "⟩", lVert: "‖", rVert: "‖", top: "⊤", log: "log", exp: "exp",
    max: "max", min: "min", tanh: "tanh", softmax: "softmax", quad: " ", qquad: " ",
  };
  const SUPERSCRIPT = {0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸",
    9: "⁹", "+": "⁺", "-": "⁻", "(": "⁽", ")": "⁾", "=": "⁼", a: "ᵃ", b: "ᵇ", c: "ᶜ", d: "ᵈ",
    e: "ᵉ", h: "ʰ", i: "ⁱ", j: "ʲ", k: "ᵏ", l: "ˡ", m: "ᵐ", n: "ⁿ", o: "ᵒ", p: "ᵖ", r: "ʳ",
    s: "ˢ", t: "ᵗ", u: "ᵘ", v: "ᵛ", w: "ʷ", x: "ˣ", y: "ʸ", z: "ᶻ", N: "ᴺ", R: "ᴿ", T: "ᵀ"};
  const SUBSCRIPT = {0: "₀", 1: "₁", 2: "₂", 3: "₃", 4: "₄", 5: "₅", 6: "₆", 7: "₇", 8: "₈",
    9: "₉", "+": "₊", "-": "₋", "(": "₍", ")": "₎", "=": "₌", a: "ₐ", e: "ₑ", h: "ₕ", i: "ᵢ",
    j: "ⱼ", k: "ₖ", l: "ₗ", m: "ₘ", n: "ₙ", o: "ₒ", p: "ₚ", r: "ᵣ", s: "ₛ", t: "ₜ", u: "ᵤ",
    v: "ᵥ", x: "ₓ"};
  const script = (text, table, mark) => [...text].every(c => c in table)
    ? [...text].map(c => table[c]).join("") : `${mark}${text}`;

  // A formula's TeX as plain text a reader can read in an excerpt: a^n b^n → aⁿbⁿ,
  // h_{t-1} → hₜ₋₁, \le → ≤, \frac{a}{b} → a/b. Not a typesetter: what it cannot write out
  // stays close to the TeX (x^{(k)} → x^(k)).
  function texToText(tex) {
    let text = tex.replace(/^\s*(\\\(|\\\[|\$\$?)|(\\\)|\\\]|\$\$?)\s*$/g, "");
    text = text.replace(/\\(?:mathbf|mathbb|mathrm|mathit|mathcal|boldsymbol|text|operatorname|hat|bar|tilde|vec)\s*\{([^{}]*)\}/g, "$1");
    text = text.replace(/\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "($1)/($2)");
    text = text.replace(/\\(left|right|big|Big|bigl|bigr|Bigl|Bigr)\b\s*/g, "");
    text = text.replace(/\\([A-Za-z]+)/g, (all, name) => TEX_SYMBOLS[name] ?? name);
    text = text.replace(/\\([,;:! ])/g, " ").replace(/\\([{}|%$#_&])/g, "$1");
    text = text.replace(/\^\s*(?:\{([^{}]*)\}|(\S))/g, (all, group, one) => script(group ?? one, SUPERSCRIPT, "^"));
    text = text.replace(/_\s*(?:\{([^{}]*)\}|(\S))/g, (all, group, one) => script(group ?? one, SUBSCRIPT, "_"));
    // a space between two letters each with a superscript is TeX's, not the reader's: aⁿ bⁿ → aⁿbⁿ
    const sup = `[${Object.values(SUPERSCRIPT).join("")}]`;
    text = text.replace(new RegExp(`(${sup})\\s+(?=[A-Za-z]${sup})`, "g"), "$1");
    return text.replace(/[{}]/g, "").replace(/\s+/g, " ").trim();
  }

  // What of a page an excerpt is taken from: the article's text, without the page's own table
  // of contents, the launch and download buttons, heading anchors (#) and the source of cells
  // that are hidden on the page; formulas written out.
  const NOT_TEXT = [".headerlink", "script", "style", ".bd-header-article", ".bd-sidebar-secondary",
    ".onlyprint", "#print-main-content", ".toggle-hidden", ".tag_hide-input .cell_input",
    "mjx-container", ".copybtn"];

  function searchText(htmlString, anchor) {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(NOT_TEXT.join(", ")).forEach(el => el.remove());
    doc.querySelectorAll(".math").forEach(el => {
      const text = texToText(el.textContent);
      el.textContent = el.tagName === "DIV" ? ` ${text} ` : text;  // a displayed formula is a block
    });
    const article = doc.querySelector(".bd-article") || doc.querySelector('[role="main"]');
    if (!article) return "";
    // (an id may start with a digit, which a CSS selector "#2-…" cannot name)
    const target = anchor && doc.getElementById(decodeURIComponent(anchor.replace(/^#/, "")));
    const part = target && article.contains(target) ? target : article;
    return part.textContent.replace(/\s+/g, " ").trim();
  }

  function improveSearch() {
    // searchtools.js declares Search on the search page only; the summary calls this method.
    if (typeof Search === "undefined" || !Search.htmlToText) return;
    Search.htmlToText = searchText;
  }

  function start() {
    const typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset || Promise.resolve()).then(markWideMath);
    linkFigures();
    // images still loading have no size yet
    document.querySelectorAll(".course-figure-link img").forEach(img => {
      if (!img.complete) img.addEventListener("load", markShrunkFigures, {once: true});
    });
    window.addEventListener("resize", () => { markWideMath(); markShrunkFigures(); });
    improveSearch();
    closeDrawers();
  }
  window.CourseSite = {texToText, searchText};  // for the site's tests
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
