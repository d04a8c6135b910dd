// Tiles and cities drawn as SVG, from the view the API serves. No rules here: where a tile
// may go comes from the legal moves the caller passes in.

import { asButton, s } from "./dom.js";
import { building, inkOn, tileWords } from "./names.js";
import { cellWords, S } from "./strings.js";
import { symbol } from "./symbols.js";

export const CELL = 64;
const PAD = 6;
const SIDE_LINES = {
  n: [0, 0, 1, 0], e: [1, 0, 1, 1], s: [0, 1, 1, 1], w: [0, 0, 0, 1],
};

function barrier(side, kind, size) {
  const inset = 3;
  const [x1, y1, x2, y2] = SIDE_LINES[side].map((v) => v * size);
  const dx = side === "e" ? -inset : side === "w" ? inset : 0;
  const dy = side === "s" ? -inset : side === "n" ? inset : 0;
  const line = { x1: x1 + dx, y1: y1 + dy, x2: x2 + dx, y2: y2 + dy };
  if (kind === "walls") return [s("line", { ...line, class: "wall" })];
  // a moat: water with a light dashed ripple, told apart from a wall without colour too
  return [s("line", { ...line, class: "moat" }), s("line", { ...line, class: "moat-ripple" })];
}

function fountain(size) {  // the Lion Fountain: a basin and its jets
  const c = size / 2;
  return [
    s("ellipse", { cx: c, cy: c + 7, rx: size * 0.36, ry: 8, class: "fountain-basin" }),
    s("ellipse", { cx: c, cy: c + 5, rx: size * 0.27, ry: 4.5, class: "fountain-water" }),
    s("path", { d: `M${c} ${c + 4} V${c - 17} M${c} ${c - 17} q-10 -1 -13 13 M${c} ${c - 17} `
                   + "q10 -1 13 13", class: "fountain-jet" }),
    s("text", { x: c, y: size - 7, class: "tile-name", fill: "#1d1d1d" },
      building("start").short),
  ];
}

/** A building's name at the foot of a tile: one line, or two for a long name of two
 * words; each line ends in a space, so that the lines read as words. */
function nameLines(name, size, ink) {
  const words = name.split(" ");
  const lines = name.length > 10 && words.length > 1
    ? [words.slice(0, -1).join(" "), words[words.length - 1]] : [name];
  return lines.map((line, i) => {
    const attrs = { x: size / 2, y: 55 - 9 * (lines.length - 1 - i), class: "tile-name",
                    fill: ink };
    if (line.length > 9) Object.assign(attrs, { textLength: size - 12,
                                                lengthAdjust: "spacingAndGlyphs" });
    return s("text", attrs, `${line} `);
  });
}

/** One tile as an SVG group of size × size at (0, 0): its colour, symbol, price (in a
 * disc at the top left, as on the printed tiles), short name, walls or moats. */
export function tileShape(t, size = CELL) {
  const b = building(t.type);
  const granada = Boolean(t.moats);
  const ink = inkOn(b.fill);
  const g = s("g", { class: `tile ${granada ? "granada" : "alhambra"}`, "data-tile": t.id,
                     "data-type": t.type });
  g.append(s("rect", { x: 1, y: 1, width: size - 2, height: size - 2,
                       rx: granada ? 10 : 1, fill: b.fill, class: "tile-base" }));
  if (t.type === "start") {
    g.append(...fountain(size));
  } else {
    if (granada) {  // Granada tiles: rounded, with an inner ring (told apart without colour)
      g.append(s("rect", { x: 5, y: 5, width: size - 10, height: size - 10, rx: 8,
                           class: "granada-ring", stroke: ink }));
    }
    g.append(symbol(t.type, ink, b.fill, 25, 8, 30));
    // the name, then the price: read in this order they are the start of the tile's
    // words ("bath house 10; …"), which screen readers and buttons say
    g.append(...nameLines(b.short, size, ink));
    g.append(s("circle", { cx: 15, cy: 15, r: 10, class: "price-disc" }));
    g.append(s("text", { x: 15, y: 20, class: "tile-price" }, String(t.value)));
    if (t.other_side) {  // the mark of the type on the other face
      const other = building(t.other_side.type);
      g.append(s("circle", { cx: 11, cy: 37, r: 4.5, fill: other.fill, class: "other-side" }));
    }
  }
  const kind = t.walls ? "walls" : "moats";
  for (const side of t[kind] || []) g.append(...barrier(side, kind, size));
  g.append(s("title", {}, tileWords(t)));
  return g;
}

/** A single tile as a small standalone SVG (market, reserve, tiles to place). */
export function tileSvg(t, size = CELL) {
  return s("svg", { width: size, height: size, viewBox: `0 0 ${CELL} ${CELL}`,
                    class: "tile-svg", "aria-hidden": "true", focusable: "false" },
           tileShape(t, CELL));
}

/**
 * A seat's city. options:
 * - cellMoves: [{x, y, move, label}] empty cells to highlight, each a legal move;
 * - tileMoves: Map tile id -> {move, label}: tiles that are themselves a legal move (swap);
 * - selectable: Map tile id -> {selected, label}: tiles to pick (then see their moves);
 * - last: Set of "x,y": cells built in the last turn (marked);
 * - fountain: whether the start tile is the fountain (for the words of a cell);
 * - scale: drawn size of a cell, in CSS pixels per 64;
 * - onMove(notation), onSelect(tileId).
 */
export function cityBoard(seatView, options = {}) {
  const { cellMoves = [], tileMoves = new Map(), selectable = new Map(), last = new Set(),
          fountain: isFountain = true, scale = 1, onMove, onSelect } = options;
  const points = [...seatView.city, ...cellMoves];
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys),
                                    Math.max(...ys)];
  const width = (maxX - minX + 1) * CELL + 2 * PAD;
  const height = (maxY - minY + 1) * CELL + 2 * PAD;
  const svg = s("svg", { class: "city", viewBox: `0 0 ${width} ${height}`,
                         width: Math.round(width * scale), height: Math.round(height * scale),
                         role: "group", "aria-label": S.cityLabel(seatView.name) });
  if (scale >= 1) {  // a city to act on: its cells stay big enough to tap (it scrolls)
    svg.style.minWidth = `${Math.round((width * 44) / CELL)}px`;
  }
  const at = (p) => `translate(${PAD + (p.x - minX) * CELL} ${PAD + (p.y - minY) * CELL})`;
  const where = (p) => cellWords(p.x, p.y, isFountain);
  for (const t of seatView.city) {
    const key = `${t.x},${t.y}`;
    const isLast = last.has(key);
    const words = [S.tileAt(tileWords(t), where(t))];
    if (isLast) words.push(S.lastPlaced);
    const cell = s("g", { transform: at(t), "data-cell": key,
                          class: `cell${isLast ? " last" : ""}`, role: "img",
                          "aria-label": words.join("; ") });
    cell.append(tileShape(t));
    if (isLast) {
      cell.append(s("rect", { x: 2, y: 2, width: CELL - 4, height: CELL - 4, rx: 4,
                              class: "last-mark" }));
      cell.dataset.last = "true";
    }
    const move = tileMoves.get(t.id);
    const pick = selectable.get(t.id);
    if (move) {
      cell.dataset.move = move.move;
      cell.classList.add("target");
      cell.append(s("rect", { x: 3, y: 3, width: CELL - 6, height: CELL - 6, class: "mark" }));
      asButton(cell, move.label);
      cell.addEventListener("click", () => onMove(move.move));
    } else if (pick) {
      cell.classList.add("pick");
      if (pick.selected) cell.classList.add("selected");
      cell.append(s("rect", { x: 3, y: 3, width: CELL - 6, height: CELL - 6, class: "mark" }),
                  s("circle", { cx: CELL - 12, cy: 12, r: 7, class: "pick-badge" }),
                  s("path", { d: `M${CELL - 16} 12 a4 4 0 1 1 4 4 M${CELL - 16} 12 l-2 -2 m2 2 l2 -2`,
                              class: "pick-arrow" }));
      asButton(cell, `${pick.label}; ${where(t)}`);
      cell.setAttribute("aria-pressed", String(Boolean(pick.selected)));
      cell.dataset.select = t.id;
      cell.addEventListener("click", () => onSelect(t.id));
    }
    svg.append(cell);
  }
  for (const c of cellMoves) {
    const cell = s("g", { transform: at(c), "data-cell": `${c.x},${c.y}`, "data-move": c.move,
                          class: "cell target empty" });
    cell.append(s("rect", { x: 4, y: 4, width: CELL - 8, height: CELL - 8, rx: 6,
                            class: "spot" }));
    cell.append(s("text", { x: CELL / 2, y: CELL / 2 + 9, class: "spot-label" }, "+"));
    const label = c.label(where(c));
    cell.append(s("title", {}, label));
    asButton(cell, label);
    cell.addEventListener("click", () => onMove(c.move));
    svg.append(cell);
  }
  return svg;
}
