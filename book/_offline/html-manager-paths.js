// The ipywidgets HTML manager is a set of RequireJS modules; it finds its own font files (Font
// Awesome icons) next to the URL RequireJS gives its module "@jupyter-widgets/html-manager/dist",
// which by default is relative to the page: wrong for every page in a subfolder. This script
// lives in the same folder as the manager (vendor/html-manager/) and points RequireJS there.
(function () {
  "use strict";
  var folder = document.currentScript.src.replace(/\/[^/]*$/, "");
  window.require.config({ paths: { "@jupyter-widgets/html-manager/dist": folder } });
})();
