// A time left in words, its two largest units: "2 days 4 hours", "5 hours 10 minutes",
// "4 minutes 30 seconds". The words are strings.js's, in the page's language.

import { S } from "./strings.js";

const UNITS = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];

function unit(name, n) {
  return S.units[name](n);
}

/** ``seconds`` (a time left) in words; from an hour up, to the nearest minute (a turn
 * just begun has "3 days", not "2 days 23 hours"). */
export function timeWords(seconds) {
  let rest = seconds >= 3600 ? Math.round(seconds / 60) * 60 : Math.floor(seconds);
  for (let i = 0; i < UNITS.length; i += 1) {
    const [name, size] = UNITS[i];
    if (rest >= size || name === "second") {
      const big = unit(name, Math.floor(rest / size));
      rest %= size;
      const next = UNITS[i + 1];
      const small = next ? Math.floor(rest / next[1]) : 0;
      return small ? S.twoUnits(big, unit(next[0], small)) : big;
    }
  }
  return "";
}
