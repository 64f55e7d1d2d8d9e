// pi_memory viewer: every page works without this; it only makes them quicker to use.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // Ask before a change that takes a memory away.
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
  // A filter chosen is a search made.
  const search = document.querySelector("form.search");
  if (search) {
    for (const select of search.querySelectorAll("select")) {
      select.addEventListener("change", () => search.submit());
    }
  }
  // "/" jumps to the search box, as on most sites.
  document.addEventListener("keydown", (event) => {
    const box = document.querySelector("form.search input[type=search]");
    if (event.key === "/" && box && document.activeElement !== box
        && !(document.activeElement instanceof HTMLTextAreaElement)) {
      event.preventDefault();
      box.focus();
    }
  });
});
