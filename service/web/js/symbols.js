// A symbol per building type, drawn in a 24 × 24 box in the tile's ink colour (`ink`),
// with cut-outs in the tile's colour (`bg`). Shapes, so that types differ without colour.

import { s } from "./dom.js";

const solid = (ink) => ({ fill: ink, stroke: "none" });
const line = (ink, width = 1.8) => ({ fill: "none", stroke: ink, "stroke-width": width,
                                      "stroke-linecap": "round", "stroke-linejoin": "round" });

const DRAW = {
  // Alhambra
  pavilion: (ink, bg) => [  // a dome on columns
    s("path", { d: "M4 11 Q12 1 20 11 Z", ...solid(ink) }),
    s("rect", { x: 3, y: 11, width: 18, height: 2.5, ...solid(ink) }),
    ...[5, 10.5, 16].map((x) => s("rect", { x, y: 13.5, width: 3, height: 7, ...solid(ink) })),
    s("rect", { x: 3, y: 20.5, width: 18, height: 2, ...solid(ink) }),
    s("circle", { cx: 12, cy: 3, r: 1.2, fill: bg }),
  ],
  seraglio: (ink, bg) => [  // an onion dome over a palace with an arched door
    s("path", { d: "M12 1 C13 4 18 5 17 10 H7 C6 5 11 4 12 1 Z", ...solid(ink) }),
    s("rect", { x: 4, y: 10, width: 16, height: 12, ...solid(ink) }),
    s("path", { d: "M9.5 22 V17 A2.5 2.5 0 0 1 14.5 17 V22 Z", fill: bg }),
    s("rect", { x: 6, y: 12.5, width: 2.5, height: 3, fill: bg }),
    s("rect", { x: 15.5, y: 12.5, width: 2.5, height: 3, fill: bg }),
  ],
  arcades: (ink, bg) => [  // three arches
    s("rect", { x: 2, y: 5, width: 20, height: 17, ...solid(ink) }),
    ...[3.5, 9.5, 15.5].map((x) => s("path", {
      d: `M${x} 22 V12 A2.5 2.5 0 0 1 ${x + 5} 12 V22 Z`, fill: bg })),
    s("rect", { x: 2, y: 3, width: 20, height: 1.5, ...solid(ink) }),
  ],
  chambers: (ink, bg) => [  // a house of many windows
    s("path", { d: "M2 8 L12 2 L22 8 Z", ...solid(ink) }),
    s("rect", { x: 3, y: 8, width: 18, height: 14, ...solid(ink) }),
    ...[[5.5, 10.5], [10.5, 10.5], [15.5, 10.5], [5.5, 16], [15.5, 16]].map(([x, y]) => s(
      "rect", { x, y, width: 3, height: 3.5, fill: bg })),
    s("rect", { x: 10.5, y: 16, width: 3, height: 6, fill: bg }),
  ],
  garden: (ink, bg) => [  // a flower with leaves
    s("path", { d: "M12 12 V22 M12 18 Q7 17 6 13 M12 19 Q17 18 18 14", ...line(ink) }),
    ...[0, 72, 144, 216, 288].map((a) => s("ellipse", {
      cx: 12, cy: 4.5, rx: 2.6, ry: 3.6, transform: `rotate(${a} 12 8)`, ...solid(ink) })),
    s("circle", { cx: 12, cy: 8, r: 2, fill: bg }),
  ],
  tower: (ink, bg) => [  // a crenellated tower
    s("path", { d: "M6 22 V7 H5 V2 H8 V4 H10.5 V2 H13.5 V4 H16 V2 H19 V7 H18 V22 Z",
                ...solid(ink) }),
    s("path", { d: "M10.5 22 V17 A1.5 1.5 0 0 1 13.5 17 V22 Z", fill: bg }),
    s("rect", { x: 11, y: 9, width: 2, height: 4, fill: bg }),
  ],
  // Granada
  arena: (ink, bg) => [  // a round arena with rows of arches
    s("ellipse", { cx: 12, cy: 12, rx: 11, ry: 9, ...solid(ink) }),
    s("ellipse", { cx: 12, cy: 12, rx: 6, ry: 4.5, fill: bg }),
    ...[5, 9, 15, 19].map((x) => s("rect", { x: x - 0.6, y: 16, width: 1.2, height: 4,
                                               fill: bg })),
  ],
  bath_house: (ink) => [  // steam over water
    s("path", { d: "M2 17 Q5 14 8 17 T14 17 T20 17 T23 16", ...line(ink, 2) }),
    s("path", { d: "M2 21.5 Q5 18.5 8 21.5 T14 21.5 T20 21.5 T23 20.5", ...line(ink, 2) }),
    ...[7, 12, 17].map((x) => s("path", { d: `M${x} 12 Q${x - 2} 9 ${x} 7 T${x} 2`,
                                          ...line(ink, 1.6) })),
  ],
  library: (ink, bg) => [  // books on a shelf
    s("rect", { x: 3, y: 5, width: 4, height: 16, ...solid(ink) }),
    s("rect", { x: 8, y: 3, width: 4, height: 18, ...solid(ink) }),
    s("rect", { x: 16, y: 4, width: 4, height: 17, transform: "rotate(14 16 21)",
                ...solid(ink) }),
    s("rect", { x: 3.8, y: 8, width: 2.4, height: 1.2, fill: bg }),
    s("rect", { x: 8.8, y: 6, width: 2.4, height: 1.2, fill: bg }),
    s("rect", { x: 2, y: 21, width: 20, height: 1.8, ...solid(ink) }),
  ],
  hostel: (ink) => [  // a bed
    s("rect", { x: 2, y: 13, width: 20, height: 5, ...solid(ink) }),
    s("rect", { x: 2, y: 7, width: 2.5, height: 15, ...solid(ink) }),
    s("rect", { x: 19.5, y: 11, width: 2.5, height: 11, ...solid(ink) }),
    s("rect", { x: 5.5, y: 9.5, width: 5, height: 3, rx: 1.5, ...solid(ink) }),
    s("path", { d: "M11 13 V11 Q11 10 12 10 H19 V13 Z", ...solid(ink) }),
  ],
  hospital: (ink, bg) => [  // a cross in a circle
    s("circle", { cx: 12, cy: 12, r: 10.5, ...solid(ink) }),
    s("path", { d: "M9.5 5 H14.5 V9.5 H19 V14.5 H14.5 V19 H9.5 V14.5 H5 V9.5 H9.5 Z",
                fill: bg }),
  ],
  market: (ink, bg) => [  // a stall with a striped awning
    s("path", { d: "M2 9 L4 3 H20 L22 9 Z", ...solid(ink) }),
    ...[6, 10.5, 15].map((x) => s("path", { d: `M${x} 3.6 L${x - 0.8} 9 H${x + 1.6} L${x + 2.1} 3.6 Z`,
                                           fill: bg })),
    s("path", { d: "M2 9 Q4.5 12 7 9 Q9.5 12 12 9 Q14.5 12 17 9 Q19.5 12 22 9",
                ...line(ink, 1.4) }),
    s("rect", { x: 4, y: 11, width: 2, height: 11, ...solid(ink) }),
    s("rect", { x: 18, y: 11, width: 2, height: 11, ...solid(ink) }),
    s("rect", { x: 3, y: 16, width: 18, height: 3, ...solid(ink) }),
  ],
  park: (ink) => [  // two trees
    s("path", { d: "M7 2 L12 11 H9 L13 17 H1 L5 11 H2 Z", ...solid(ink) }),
    s("rect", { x: 6, y: 17, width: 2, height: 5, ...solid(ink) }),
    s("circle", { cx: 17.5, cy: 10, r: 5, ...solid(ink) }),
    s("rect", { x: 16.5, y: 14, width: 2, height: 8, ...solid(ink) }),
    s("rect", { x: 1, y: 21.5, width: 22, height: 1.5, ...solid(ink) }),
  ],
  school: (ink) => [  // a scholar's cap
    s("path", { d: "M12 3 L23 8.5 L12 14 L1 8.5 Z", ...solid(ink) }),
    s("path", { d: "M5.5 11 V16.5 Q12 21 18.5 16.5 V11 L12 14 Z", ...solid(ink) }),
    s("path", { d: "M21 9.5 V16", ...line(ink, 1.5) }),
    s("circle", { cx: 21, cy: 17, r: 1.5, ...solid(ink) }),
  ],
  residential_area: (ink, bg) => [  // two houses
    s("path", { d: "M1 12 L7 6 L13 12 V22 H1 Z", ...solid(ink) }),
    s("path", { d: "M11 9 L17 3 L23 9 V22 H11 Z", ...solid(ink) }),
    s("rect", { x: 5.5, y: 16, width: 3, height: 6, fill: bg }),
    s("rect", { x: 15.5, y: 12, width: 3, height: 3, fill: bg }),
    s("rect", { x: 15.5, y: 17, width: 3, height: 5, fill: bg }),
  ],
};

/** The symbol of a building type as an SVG group, `size` wide, at (x, y). */
export function symbol(type, ink, bg, x, y, size) {
  const draw = DRAW[type];
  const g = s("g", { class: "symbol", "data-symbol": type, "aria-hidden": "true",
                     transform: `translate(${x} ${y}) scale(${size / 24})` });
  if (draw) g.append(...draw(ink, bg));
  else g.append(s("circle", { cx: 12, cy: 12, r: 8, fill: ink }));
  return g;
}
