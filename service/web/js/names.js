// How things look and are called on the page: names, colours, symbols. No rules here.

export const VARIANT_NAMES = {
  alhambra: "Alhambra",
  granada: "Granada",
  alhambra_granada: "Alhambra + Granada",
};

// Building types: label, short label for small tiles, fill colour.
export const BUILDINGS = {
  start: { name: "start tile", short: "start", fill: "#f3e2b3" },
  pavilion: { name: "pavilion", short: "Pav", fill: "#3b78c4" },
  seraglio: { name: "seraglio", short: "Ser", fill: "#c23b3b" },
  arcades: { name: "arcades", short: "Arc", fill: "#8b5a2b" },
  chambers: { name: "chambers", short: "Cha", fill: "#f4f1e8" },
  garden: { name: "garden", short: "Gar", fill: "#3d8b3d" },
  tower: { name: "tower", short: "Tow", fill: "#7a4aa6" },
  arena: { name: "arena", short: "Arena", fill: "#d9822b" },
  bath_house: { name: "bath house", short: "Bath", fill: "#2a9fb0" },
  library: { name: "library", short: "Lib", fill: "#9a7b4f" },
  hostel: { name: "hostel", short: "Host", fill: "#d4578a" },
  hospital: { name: "hospital", short: "Hosp", fill: "#e6e6ea" },
  market: { name: "market", short: "Mkt", fill: "#e3c23f" },
  park: { name: "park", short: "Park", fill: "#6fb35a" },
  school: { name: "school", short: "Sch", fill: "#4a5fb0" },
  residential_area: { name: "residential area", short: "Res", fill: "#a0522d" },
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

export function building(type) {
  return BUILDINGS[type] || { name: String(type).replaceAll("_", " "), short: type, fill: "#ccc" };
}

/** Black or white text, whichever reads better on the colour. */
export function inkOn(fill) {
  const n = parseInt(fill.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#1d1d1d" : "#ffffff";
}

// Currencies: code as in the notation, name, symbol (shape, not colour alone), colour.
export const CURRENCIES = {
  DE: { name: "denar", symbol: "▲", colour: "#2e7d32" },
  DI: { name: "dirham", symbol: "●", colour: "#5b6b7a" },
  DU: { name: "ducat", symbol: "◆", colour: "#b8860b" },
  FL: { name: "florin", symbol: "■", colour: "#c0392b" },
};
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

export const SIDES = { n: "north", e: "east", s: "south", w: "west" };

/** A tile in words, e.g. "garden 8, walls north and east". */
export function tileWords(t) {
  if (!t) return "";
  const b = building(t.type);
  if (t.type === "start") return "start tile";
  const parts = [`${b.name} ${t.value}`];
  const kind = t.walls ? "walls" : "moats";
  const sides = t.walls || t.moats || [];
  parts.push(sides.length ? `${kind} ${sides.map((x) => SIDES[x]).join(", ")}`
                          : `no ${kind}`);
  if (t.other_side) {
    parts.push(`Granada tile, ${t.face} face; other side ${building(t.other_side.type).name} `
               + `${t.other_side.value}`);
  }
  return parts.join("; ");
}
