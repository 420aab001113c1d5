// Loaded by scripts/render.sh into a copy of an HTML summary: lists each table wider than the page's body or the
// window, and each cell whose text is wider than the cell (cut or overflowing), in a <pre id="layout-check">.
window.addEventListener("load", () => {
  const out = [];
  const body = document.body.getBoundingClientRect();
  document.querySelectorAll("table").forEach((table, i) => {
    const right = table.getBoundingClientRect().right;
    if (right > body.right + 1 || right > window.innerWidth) {
      out.push(`table ${i} (${table.closest("section")?.id || "page"}) ends at ${Math.round(right)} px, ` +
               `the body at ${Math.round(body.right)} px`);
    }
  });
  document.querySelectorAll("td, th").forEach((cell) => {
    if (cell.scrollWidth > cell.clientWidth + 1) {
      out.push(`cell "${cell.textContent.trim().slice(0, 40)}": ${cell.scrollWidth} px in ${cell.clientWidth} px`);
    }
  });
  const pre = document.createElement("pre");
  pre.id = "layout-check";
  pre.textContent = `at ${window.innerWidth} px: ` + (out.length ? out.join("\n") : "every table fits");
  document.body.appendChild(pre);
});
