// The page's language, and its words from the server's gettext catalogs.
//
// The language: `?lang=` in the address, else (a seat's page) the seat's own language,
// else the one chosen with the switcher on this browser, else the browser's languages,
// else English. Its catalog (GET /i18n/<lang>.json: the messages of the web pages, from
// the same catalogs as the mails; on a game's page, in its variant's words) is loaded
// before any page module says a word (top-level await). `_`, `ngettext` and `pgettext`
// are what `pybabel extract` looks for; their placeholders are `{name}`, as in the
// server's messages. Every request the pages make says the language (`Accept-Language`),
// so errors and the history come back in it.

export const LANGUAGES = { en: "English", el: "Ελληνικά", fi: "suomi", da: "dansk",
                           ru: "русский" };
const STORED = "alhambra-lang";

function supported(tag) {
  const primary = String(tag || "").toLowerCase().split(/[-_]/)[0];
  return Object.hasOwn(LANGUAGES, primary) ? primary : null;
}

/** The game of a game's page (`/play/<id>`, `/replay/<id>`, with `#token=…` as the
 *  seat sees it), else null. */
async function pageGame() {
  const game = location.pathname.match(/^\/(play|replay)\/([^/]+)$/);
  if (!game) return null;
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  try {
    const resp = await fetch(`/games/${encodeURIComponent(game[2])}`,
                             token ? { headers: { Authorization: `Bearer ${token}` } } : {});
    return resp.ok ? await resp.json() : null;
  } catch {
    return null;
  }
}

/** The seat's own language, on a seat's page, else null. */
function seatLanguage(doc) {
  const mine = doc && doc.seats.find((s) => s.seat === doc.your_seat);
  return mine ? supported(mine.language) : null;
}

function stored() {
  try {
    return supported(localStorage.getItem(STORED));
  } catch {
    return null;
  }
}

const game = await pageGame();

export const lang = supported(new URLSearchParams(location.search).get("lang"))
  || seatLanguage(game) || stored()
  || (navigator.languages || [navigator.language]).map(supported).find(Boolean) || "en";
// a game's page says its variant's words (a Granada city is no Alhambra)
const catalog = await fetch(`/i18n/${lang}.json${game ? `?variant=${game.variant}` : ""}`)
  .then((r) => (r.ok ? r.json() : null)).catch(() => null);
const messages = (catalog && catalog.messages) || {};
const rules = new Intl.PluralRules(lang);
document.documentElement.lang = lang;

function format(text, params) {
  return params ? text.replace(/\{(\w+)\}/g, (all, key) => (
    Object.hasOwn(params, key) ? String(params[key]) : all)) : text;
}

/** A message in the page's language, its `{name}` placeholders filled from `params`. */
export function _(msgid, params) {
  const text = messages[msgid];
  return format(typeof text === "string" && text ? text : msgid, params);
}

/** A message whose English is ambiguous without its `context`. */
export function pgettext(context, msgid, params) {
  const text = messages[`${context}\u0004${msgid}`];
  return format(typeof text === "string" && text ? text : msgid, params);
}

/** A message that depends on a count `n` (also its `{n}`), in the language's plural forms. */
export function ngettext(singular, plural, n, params) {
  const forms = messages[singular];
  const text = (forms && typeof forms === "object" && (forms[rules.select(n)] || forms.other))
    || (n === 1 ? singular : plural);
  return format(text, { n, ...params });
}

/** A list as the language says it: "a, b and c". */
export function listing(items) {
  return new Intl.ListFormat(lang, { type: "conjunction" }).format(items.map(String));
}

/** The headers every request of the pages sends: the page's language. */
export function languageHeaders() {
  return { "Accept-Language": lang };
}

/**
 * The language switcher, for the page's header: choosing a language keeps it on this
 * browser (`onChoose` may keep it elsewhere too, e.g. as the seat's language), then
 * shows the page again in it.
 */
export function switcher(onChoose) {
  const select = document.createElement("select");
  select.className = "language";
  select.setAttribute("aria-label", _("Language"));
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = new Option(name, code, false, code === lang);
    option.lang = code;
    select.append(option);
  }
  select.addEventListener("change", async () => {
    try {
      localStorage.setItem(STORED, select.value);
    } catch {
      // no storage: the address says it
    }
    if (onChoose) await onChoose(select.value);
    const url = new URL(location.href);
    url.searchParams.set("lang", select.value);
    location.replace(url);
  });
  return select;
}
