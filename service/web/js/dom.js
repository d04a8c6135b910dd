// Building DOM and SVG elements: text always goes in as text, never as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h("button", {class: "x", onclick: f}, "text", child...). */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element, like h. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Make a non-button element act as a button: focusable, Enter and Space click it. */
export function asButton(el, label) {
  el.setAttribute("role", "button");
  el.setAttribute("tabindex", "0");
  if (label) el.setAttribute("aria-label", label);
  el.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      el.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    }
  });
  return el;
}

/** Replace the children of the element with this id. */
export function fill(id, ...children) {
  const el = document.getElementById(id);
  el.replaceChildren();
  build(el, {}, children);
  return el;
}

/** Put the words of `table` into the page's static HTML: an element marked
 * `data-s="key"` gets table[key] as its text, `data-s-label="key"` as its aria-label,
 * `data-s-title="key"` as its title. */
export function applyStrings(table, root = document) {
  for (const el of root.querySelectorAll("[data-s]")) {
    if (table[el.dataset.s] !== undefined) el.textContent = table[el.dataset.s];
  }
  for (const el of root.querySelectorAll("[data-s-label]")) {
    if (table[el.dataset.sLabel] !== undefined) {
      el.setAttribute("aria-label", table[el.dataset.sLabel]);
    }
  }
  for (const el of root.querySelectorAll("[data-s-title]")) {
    if (table[el.dataset.sTitle] !== undefined) el.title = table[el.dataset.sTitle];
  }
}
