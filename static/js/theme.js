// Applies the saved colour theme before the first paint (loaded by every page's head, blocking:
// a classic script, small on purpose).
(function () {
  try {
    var t = localStorage.getItem("cg-theme");
    if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  } catch (e) {}
})();
