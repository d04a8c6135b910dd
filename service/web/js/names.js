// How things look on the page: colours and symbols, and things said in words (the words
// themselves are in strings.js). No rules here.

import { BUILDING_NAMES, CURRENCY_NAMES, S, SIDES } from "./strings.js";

export { VARIANT_NAMES } from "./strings.js";

// Building colours: the game's hue for each type, chosen so that the fifteen types of the
// combined game stay apart in normal vision and in simulated protanopia, deuteranopia and
// tritanopia (tests/web/test_colours.py checks it); every tile also carries its symbol and
// short name, so no one needs the colour alone.
export const FILLS = {
  start: "#f3e2b3",
  pavilion: "#1c45c2",
  seraglio: "#e01706",
  arcades: "#492107",
  chambers: "#f2f2f2",
  garden: "#227b3f",
  tower: "#473189",
  arena: "#d98b09",
  bath_house: "#2bd3db",
  library: "#9f8e7f",
  hostel: "#ae4090",
  hospital: "#a9b489",
  market: "#fdca06",
  park: "#b8db96",
  school: "#081b53",
  residential_area: "#6c3435",
};

export const ALHAMBRA_TYPES = ["pavilion", "seraglio", "arcades", "chambers", "garden", "tower"];
export const GRANADA_TYPES = ["arena", "bath_house", "library", "hostel", "hospital", "market",
                              "park", "school", "residential_area"];

/** The building types of a variant, in scoring order. */
export function typesOf(variant) {
  if (variant === "alhambra") return ALHAMBRA_TYPES;
  if (variant === "granada") return GRANADA_TYPES;
  return [...ALHAMBRA_TYPES, ...GRANADA_TYPES];
}

/** A building type: {type, name, short, plural, fill}. */
export function building(type) {
  const [name, short, many] = BUILDING_NAMES[type]
    || [String(type).replaceAll("_", " "), String(type), String(type)];
  return { type, name, short, plural: many, fill: FILLS[type] || "#cccccc" };
}

/** Black or white ink, whichever contrasts more with the colour (WCAG luminance). */
export function inkOn(fill) {
  const n = parseInt(fill.slice(1), 16);
  const lin = (v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const lum = 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255)
              + 0.0722 * lin(n & 255);
  return (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) ? "#111111" : "#ffffff";
}

// Currencies: code as in the notation, symbol (shape, not colour alone), colour.
export const CURRENCIES = {
  DE: { symbol: "▲", colour: "#2e7d32" },
  DI: { symbol: "●", colour: "#4f5f6e" },
  DU: { symbol: "◆", colour: "#9a6d00" },
  FL: { symbol: "■", colour: "#b0302a" },
};
for (const [code, [name, many]] of Object.entries(CURRENCY_NAMES)) {
  Object.assign(CURRENCIES[code], { name, plural: many });
}
export const CURRENCY_CODES = { denar: "DE", dirham: "DI", ducat: "DU", florin: "FL" };

/** "DI5" -> {code: "DI", value: 5, ...currency} */
export function card(text) {
  const code = text.slice(0, 2);
  return { code, value: Number(text.slice(2)), text, ...CURRENCIES[code] };
}

export function cardLabel(text) {
  const c = card(text);
  return `${c.name} ${c.value}`;
}

/** A tile's name and price, e.g. "garden 8". */
export function tileName(t) {
  return S.tileWords(building(t.type).name, t.value);
}

/** A tile in words, e.g. "garden 8; walls north, east". */
export function tileWords(t) {
  if (!t) return "";
  const b = building(t.type);
  if (t.type === "start") return b.name;
  const parts = [S.tileWords(b.name, t.value)];
  const kind = t.walls ? "walls" : "moats";
  parts.push(S.barriers(kind, (t.walls || t.moats || []).map((x) => SIDES[x])));
  if (t.other_side) {
    parts.push(S.otherSide(S.faceNames[t.face] || t.face, building(t.other_side.type).name,
                           t.other_side.value));
  }
  return parts.join("; ");
}

/** A tile as it will lie turned over (for a preview of a flip). */
export function flipped(t) {
  if (!t.other_side) return t;
  return { ...t, type: t.other_side.type, value: t.other_side.value,
           face: t.face === "back" ? "front" : "back",
           other_side: { type: t.type, value: t.value } };
}
