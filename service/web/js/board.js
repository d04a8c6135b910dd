// Tiles and cities drawn as SVG, from the view the API serves. No rules here: where a tile
// may go comes from the legal moves the caller passes in.

import { asButton, s } from "./dom.js";
import { building, inkOn, tileWords } from "./names.js";

export const CELL = 64;
const PAD = 6;
const SIDE_LINES = {
  n: [0, 0, 1, 0], e: [1, 0, 1, 1], s: [0, 1, 1, 1], w: [0, 0, 0, 1],
};

function barrier(side, kind, size) {
  const inset = 4;
  const [x1, y1, x2, y2] = SIDE_LINES[side].map((v) => v * size);
  const dx = side === "e" ? -inset : side === "w" ? inset : 0;
  const dy = side === "s" ? -inset : side === "n" ? inset : 0;
  const line = { x1: x1 + dx, y1: y1 + dy, x2: x2 + dx, y2: y2 + dy };
  if (kind === "walls") return [s("line", { ...line, class: "wall" })];
  // a moat: water with a light dashed ripple, told apart from a wall without colour too
  return [s("line", { ...line, class: "moat" }), s("line", { ...line, class: "moat-ripple" })];
}

function fountain(size) {
  const c = size / 2;
  return [
    s("circle", { cx: c, cy: c - 4, r: size * 0.28, class: "fountain-basin" }),
    s("circle", { cx: c, cy: c - 4, r: size * 0.12, class: "fountain-water" }),
    s("text", { x: c, y: size - 7, class: "tile-type", fill: "#1d1d1d" }, "start"),
  ];
}

/** One tile as an SVG group of size × size at (0, 0). */
export function tileShape(t, size = CELL) {
  const b = building(t.type);
  const granada = Boolean(t.moats);
  const ink = inkOn(b.fill);
  const g = s("g", { class: `tile ${granada ? "granada" : "alhambra"}`, "data-tile": t.id });
  g.append(s("rect", { x: 1.5, y: 1.5, width: size - 3, height: size - 3,
                       rx: granada ? 11 : 0, fill: b.fill, class: "tile-base" }));
  if (t.type === "start") {
    g.append(...fountain(size));
  } else {
    if (granada) {  // Granada tiles: rounded, with an inner ring (told apart without colour)
      g.append(s("rect", { x: 7, y: 7, width: size - 14, height: size - 14, rx: 9,
                           class: "granada-ring", stroke: ink }));
    }
    g.append(s("text", { x: size / 2, y: 17, class: "tile-type", fill: ink }, b.short));
    g.append(s("text", { x: size / 2, y: size / 2 + 12, class: "tile-price", fill: ink },
               String(t.value)));
    if (t.other_side) {  // the mark of the type on the other face
      const other = building(t.other_side.type);
      g.append(s("circle", { cx: size - 14, cy: size - 14, r: 6, fill: other.fill,
                             class: "other-side" }));
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
 * - onMove(notation), onSelect(tileId).
 */
export function cityBoard(seatView, options = {}) {
  const { cellMoves = [], tileMoves = new Map(), selectable = new Map(), onMove, onSelect }
    = options;
  const points = [...seatView.city, ...cellMoves];
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys),
                                    Math.max(...ys)];
  const width = (maxX - minX + 1) * CELL + 2 * PAD;
  const height = (maxY - minY + 1) * CELL + 2 * PAD;
  const svg = s("svg", { class: "city", viewBox: `0 0 ${width} ${height}`, width, height,
                         role: "group", "aria-label": `${seatView.name}'s city` });
  const at = (p) => `translate(${PAD + (p.x - minX) * CELL} ${PAD + (p.y - minY) * CELL})`;
  for (const t of seatView.city) {
    const cell = s("g", { transform: at(t), "data-cell": `${t.x},${t.y}`, class: "cell",
                          role: "img", "aria-label": `${tileWords(t)}, at ${t.x},${t.y}` });
    cell.append(tileShape(t));
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
      cell.append(s("rect", { x: 3, y: 3, width: CELL - 6, height: CELL - 6, class: "mark" }));
      asButton(cell, pick.label);
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
    cell.append(s("text", { x: CELL / 2, y: CELL / 2 + 5, class: "spot-label" }, "+"));
    cell.append(s("title", {}, c.label));
    asButton(cell, c.label);
    cell.addEventListener("click", () => onMove(c.move));
    svg.append(cell);
  }
  return svg;
}
