// @ts-check
//# allFunctionsCalledOnLoad
// Fills DOM templates (markup in index.html) from a typed view model. Under `root`:
//   data-text="path" textContent · data-show="path" ("!path") hidden unless truthy (falsy;
//   an empty list is falsy) · data-attr-NAME / data-style-NAME="path" an attribute / style
//   property · data-prop-NAME="path" ("!path") a property (value, disabled) · data-class="path"
//   adds a class · data-cmd="path" the value as JSON in data-payload, read back by `onCmd` ·
//   data-each="path" a copy of the template (its <template> child, or the one data-tpl names)
//   per item (an object: one; null: none); a <select>'s copies are kept and filled again.
// A path is dotted ("at.step"); "." is the model itself, "#" the item's index.

/** @param {any} model @param {string} path @param {number} i */
function get(model, path, i) {
  if (path === '.') return model;
  if (path === '#') return i;
  return path.split('.').reduce((o, k) => (o == null ? o : o[k]), model);
}

/** The element of id `id` (the page's modules share this one). @returns {any} */
const $ = (id) => document.getElementById(id);
// Not `export const`: scripts/finish-dist.mjs bundles \w+ names only.
export { $ };

const truthy = (v) => (Array.isArray(v) ? v.length > 0 : !!v);

/** Fills every bound element of `root` (an element or fragment) from `model`; the copies
 * under a data-each or data-tpl element are its items' (filled by `add`, left alone here).
 * @param {any} root @param {any} model */
export function fill(root, model, i = 0) {
  const el = root instanceof Element ? root : null;
  for (const { name, value } of el ? [...el.attributes] : []) {
    if (!name.startsWith('data-') || name === 'data-payload') continue;
    const v = () => get(model, value.replace(/^!/, ''), i);
    if (name === 'data-text') el.textContent = v() ?? '';
    else if (name === 'data-show') /** @type {HTMLElement} */ (el).hidden = truthy(v()) === value.startsWith('!');
    else if (name === 'data-class') { if (v()) el.classList.add(String(v())); }
    else if (name === 'data-cmd') el.setAttribute('data-payload', JSON.stringify(v() ?? null));
    else if (name === 'data-each') {
      if (el.tagName === 'SELECT') refill(/** @type {HTMLElement} */ (el), v());
      else { clear(el); add(/** @type {HTMLElement} */ (el), v(), 0); }
    }
    else if (name.startsWith('data-attr-')) el.setAttribute(name.slice(10), String(v() ?? ''));
    else if (name.startsWith('data-prop-')) el[name.slice(10)] = value.startsWith('!') ? !truthy(v()) : v();
    else if (name.startsWith('data-style-')) /** @type {HTMLElement} */ (el).style.setProperty(name.slice(11), v() ?? '');
  }
  if (!el || !el.matches('[data-each],[data-tpl]')) for (const c of [...root.children]) fill(c, model, i);
}

/** Removes the copies of a data-each element's template. @param {Element} el */
export function clear(el) {
  for (const c of copiesOf(el)) c.remove();
}

/** The copies a data-each element holds (its children but its <template>). @param {Element} el */
const copiesOf = (el) => [...el.children].filter((c) => c.tagName !== 'TEMPLATE');
/** A data-each value as a list: an array as it is, an object one item, null none. @param {any} items @returns {any[]} */
const listOf = (items) => (Array.isArray(items) ? items : items == null ? [] : [items]);

/** A <select>'s copies for `items`, those it has filled again in place: a new option costs the page a style and
 * layout of the select (1.5-2.7 ms in a file's first open), a new text on an option almost none (RESULTS.md, issue
 * 44's seventeenth session). Only for templates whose bindings all set (no data-class, which only adds).
 * @param {HTMLElement} el @param {any} items */
function refill(el, items) {
  const list = listOf(items), copies = copiesOf(el);
  for (const c of copies.slice(list.length)) c.remove();
  copies.slice(0, list.length).forEach((c, k) => fill(c, list[k], k));
  add(el, list.slice(copies.length), copies.length);
}

/** Appends one filled copy of `el`'s template per item (an object: one copy; null: none).
 * @param {HTMLElement} el @param {any} items */
export function add(el, items, first = 0) {
  const t = /** @type {HTMLTemplateElement} */ (el.dataset.tpl ? document.getElementById(el.dataset.tpl) : el.querySelector(':scope > template'));
  for (const [k, item] of listOf(items).entries()) {
    const copy = /** @type {DocumentFragment} */ (t.content.cloneNode(true));
    fill(copy, item, first + k);
    el.append(copy);
  }
}

/** One delegated click handler under `root`: fn(payload, element, event) for a click on
 * (or inside) an element filled by data-cmd. @param {Element} root @param {(p: any, el: HTMLElement, e: MouseEvent) => void} fn */
export function onCmd(root, fn) {
  root.addEventListener('click', (e) => {
    const el = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest('[data-payload]'));
    if (el && root.contains(el)) { e.preventDefault(); fn(JSON.parse(el.dataset.payload || 'null'), el, /** @type {MouseEvent} */ (e)); }
  });
}
