// Every word the pages show, in one place, in the page's language (i18n.js: the server's
// catalogs; the words of the game, such as building and currency names, are the same
// messages as the mails'). The event lines of the history come from the API
// (engine/describe.py), in the same language.

import { _, lang, listing, ngettext, pgettext } from "./i18n.js";

export { lang, listing };

/** "1 card", "3 cards". */
export function cards(n) {
  return ngettext("{n} card", "{n} cards", n);
}

/** "1 point", "3 points". */
export function points(n) {
  return ngettext("{n} point", "{n} points", n);
}

// (No gettext call inside another's arguments: pybabel's extractor would miss it.)
function tiles(n) {
  return ngettext("{n} tile", "{n} tiles", n);
}

function players(n) {
  return ngettext("{n} player", "{n} players", n);
}

function capital(word) {
  return word ? word[0].toLocaleUpperCase(lang) + word.slice(1) : word;
}

export const VARIANT_NAMES = {
  alhambra: _("Alhambra"),
  granada: _("Granada"),
  alhambra_granada: _("Alhambra + Granada"),
};

// Building types: name, name on the tile (always there), plural.
const NAMES = {
  start: pgettext("building", "start tile"),
  pavilion: pgettext("building", "pavilion"),
  seraglio: pgettext("building", "seraglio"),
  arcades: pgettext("building", "arcades"),
  chambers: pgettext("building", "chambers"),
  garden: pgettext("building", "garden"),
  tower: pgettext("building", "tower"),
  arena: pgettext("building", "arena"),
  bath_house: pgettext("building", "bath house"),
  library: pgettext("building", "library"),
  hostel: pgettext("building", "hostel"),
  hospital: pgettext("building", "hospital"),
  market: pgettext("building", "market"),
  park: pgettext("building", "park"),
  school: pgettext("building", "school"),
  residential_area: pgettext("building", "residential area"),
};
const PLURALS = {
  start: pgettext("building", "start tile"),
  pavilion: pgettext("buildings", "pavilions"),
  seraglio: pgettext("buildings", "seraglios"),
  arcades: pgettext("buildings", "arcades"),
  chambers: pgettext("buildings", "chambers"),
  garden: pgettext("buildings", "gardens"),
  tower: pgettext("buildings", "towers"),
  arena: pgettext("buildings", "arenas"),
  bath_house: pgettext("buildings", "bath houses"),
  library: pgettext("buildings", "libraries"),
  hostel: pgettext("buildings", "hostels"),
  hospital: pgettext("buildings", "hospitals"),
  market: pgettext("buildings", "markets"),
  park: pgettext("buildings", "parks"),
  school: pgettext("buildings", "schools"),
  residential_area: pgettext("buildings", "residential areas"),
};
export const BUILDING_NAMES = Object.fromEntries(Object.entries(NAMES).map(
  ([type, name]) => [type, [name, type === "start" ? _("start") : capital(name),
                            PLURALS[type]]]));

export const CURRENCY_NAMES = {
  DE: [pgettext("currency", "denar"), pgettext("currencies", "denars")],
  DI: [pgettext("currency", "dirham"), pgettext("currencies", "dirhams")],
  DU: [pgettext("currency", "ducat"), pgettext("currencies", "ducats")],
  FL: [pgettext("currency", "florin"), pgettext("currencies", "florins")],
};

/** An amount of a currency: "8 dirhams" (the mails' words). */
export function amount(code, n) {
  if (code === "DE") return ngettext("{n} denar", "{n} denars", n);
  if (code === "DI") return ngettext("{n} dirham", "{n} dirhams", n);
  if (code === "DU") return ngettext("{n} ducat", "{n} ducats", n);
  return ngettext("{n} florin", "{n} florins", n);
}

export const SIDES = { n: pgettext("side", "north"), e: pgettext("side", "east"),
                       s: pgettext("side", "south"), w: pgettext("side", "west") };
const NEAR_FOUNTAIN = {
  "0,-1": _("north of the fountain"), "1,-1": _("north-east of the fountain"),
  "1,0": _("east of the fountain"), "1,1": _("south-east of the fountain"),
  "0,1": _("south of the fountain"), "-1,1": _("south-west of the fountain"),
  "-1,0": _("west of the fountain"), "-1,-1": _("north-west of the fountain"),
};
const NEAR_START = {
  "0,-1": _("north of the start tile"), "1,-1": _("north-east of the start tile"),
  "1,0": _("east of the start tile"), "1,1": _("south-east of the start tile"),
  "0,1": _("south of the start tile"), "-1,1": _("south-west of the start tile"),
  "-1,0": _("west of the start tile"), "-1,-1": _("north-west of the start tile"),
};
const SCORINGS = { 1: _("1st scoring"), 2: _("2nd scoring"), 3: _("3rd scoring") };
const NEUTRALS = { Dirk: pgettext("neutral player", "Dirk"),
                   Juan: pgettext("neutral player", "Juan") };
const BOTS = { random: pgettext("bot level", "random"), greedy: pgettext("bot level", "greedy"),
               strong: pgettext("bot level", "strong") };

/** Where a cell is, from the start tile, as the history says it. */
export function cellWords(x, y, fountain = true) {
  const near = (fountain ? NEAR_FOUNTAIN : NEAR_START)[`${x},${y}`];
  if (near) return near;
  const steps = [];
  if (x) {
    steps.push(x > 0 ? ngettext("{n} east", "{n} east", x)
                     : ngettext("{n} west", "{n} west", -x));
  }
  if (y) {
    steps.push(y > 0 ? ngettext("{n} south", "{n} south", y)
                     : ngettext("{n} north", "{n} north", -y));
  }
  return fountain ? _("{steps} of the fountain", { steps: listing(steps) })
                  : _("{steps} of the start tile", { steps: listing(steps) });
}

export const S = {
  // the page's static HTML (data-s, data-s-label)
  skip: _("Skip to your city"),
  spectatorView: _("spectator view"),
  rules: _("rules"),
  loading: _("Loading the game…"),
  marketLabel: _("Market and money display"),
  lastLabel: _("The last turn"),
  scorings: _("Scorings"),
  meLabel: _("Your city, money and reserve"),
  allMovesLabel: _("All legal moves"),

  // the page
  gameTitle: (variant, id) => _("{variant} · game {id}", { variant, id }),
  noGameTitle: _("No such game"),
  noGame: _("There is no game at this address: check the link you were sent."),
  notAGame: _("This is not a game's address."),
  round: (n) => _("Round {n}", { n }),
  live: _("live"),
  offline: _("offline"),
  waitingPlayers: (n) => ngettext(
    "Waiting for {n} more player to join: the game starts when every seat is taken.",
    "Waiting for {n} more players to join: the game starts when every seat is taken.", n),
  seats: _("Seats"),
  openSeat: _("(open seat)"),
  gameOver: _("Game over."),
  yourTurnWhat: { action: _("take money, buy, or redesign"),
                  placement: _("place the tiles you bought"),
                  distribution: _("place the tile you received") },
  yourTurn: (what) => _("Your turn: {what}.", { what }),
  theirTurn: (name) => _("{name}'s turn.", { name }),
  deadline: (text) => ` ${_("Deadline: {deadline}.", { deadline: text })}`,
  deadlinePassed: _("passed"),
  inMinutes: (n) => ngettext("in {n} minute", "in {n} minutes", n),
  inHours: (n) => ngettext("in {n} hour", "in {n} hours", n),
  inDays: (n) => ngettext("in {n} day", "in {n} days", n),
  done: (lines) => _("Done: {lines}.", { lines: lines.join(". ") }),
  planOverruled: (lines) => _("The game moved on while you planned: {lines}. Nothing of your "
                              + "plan was sent: plan your turn again.",
                              { lines: lines.join(". ") }),
  movedOn: _("The game moved on while you were choosing: the page shows it again. "
             + "Choose again."),
  rule: _("rule"),
  unreachable: _("the server cannot be reached; check the connection and try again"),

  // clocks
  units: { day: (n) => ngettext("{n} day", "{n} days", n),
           hour: (n) => ngettext("{n} hour", "{n} hours", n),
           minute: (n) => ngettext("{n} minute", "{n} minutes", n),
           second: (n) => ngettext("{n} second", "{n} seconds", n) },
  // TRANSLATORS: a time in two units: "2 days 4 hours"
  twoUnits: (big, small) => _("{big} {small}", { big, small }),
  noTimeLeft: _("No time left."),
  leftInYourBank: (time) => _("{time} left in your bank.", { time }),
  leftForYourMove: (time) => _("{time} left for this move.", { time }),
  leftInBank: (name, time) => _("{name}: {time} left in the bank.", { name, time }),
  leftForMove: (name, time) => _("{name}: {time} left for this move.", { name, time }),
  weekendOff: (when) => _("Weekend off: the clocks run again {when}.", { when }),
  dayOff: (when) => _("A day off: the clocks run again {when}.", { when }),
  timeLeft: _("time left: "),
  inTheBank: (time) => _("{time} in the bank", { time }),
  mailFailing: (reason) => _("Mails to this address fail: {reason}", { reason }),
  confirmAddress: _("My address works: send mails again"),

  // a planned turn
  turnPlanned: (n) => ngettext("Your turn, planned: {n} move, not sent yet.",
                               "Your turn, planned: {n} moves, not sent yet.", n),
  planLabel: _("Your planned turn"),
  planTitle: _("Planned, not sent yet"),
  planEnds: _("These moves end your turn: send them, or undo a move to plan it otherwise."),
  planGoesOn: _("Plan on, or send these moves now: your turn goes on after them."),
  planComplete: _("Your turn is planned."),
  sendTurn: _("Send turn"),
  sendMoves: _("Send these moves"),
  undo: _("Undo"),

  // final scores
  finalScores: _("Final scores"),
  winners: (names, n) => ngettext("Winner: {names}.", "Winners: {names}.", n, { names }),
  player: _("Player"),
  points: _("Points"),
  winner: ` ${_("(winner)")}`,
  neutral: (name) => _("{name} (neutral)", { name }),
  theNeutral: _("the neutral player"),
  neutralName: (name) => NEUTRALS[name] || name,
  replay: _("Step through the game move by move"),
  record: _("The game record"),
  recordNote: ` ${_("(JSON: every move in notation; import it to replay).")}`,

  // the last turn and scorings
  lastTurn: (name) => _("Last turn: {name}", { name }),
  thisTurn: _("Your turn so far"),
  lastPlaced: _("placed last turn"),
  newTile: _("new"),
  scoringTitle: (n) => SCORINGS[n] || String(n),
  scoringCaption: (n) => _("Points of the {scoring}, per building type and for the "
                           + "longest line", { scoring: SCORINGS[n] || String(n) }),
  scoringWhat: _("Points for"),
  total: _("Total"),
  lines: { wall: _("the longest wall"), moat: _("the longest moat"),
           combined: _("the longest line of walls and moats") },

  // your city
  yourCity: (name, n) => _("Your city · {name} · {points}", { name, points: points(n) }),
  tilesToPlace: _("Tiles to place"),
  yourMoney: (n) => _("Your money ({cards})", { cards: cards(n) }),
  yourReserve: (n) => _("Your reserve ({count})", { count: n }),
  empty: _("Empty."),
  noMoney: _("No money cards."),
  moneyByCurrency: _("your money by currency"),
  cityLabel: (name) => _("{name}'s city", { name }),
  pickToPlace: (tile) => _("pick {tile} to place", { tile }),
  pickToPlaceEnds: (tile) => _("pick {tile} to place now (this ends your actions)", { tile }),
  pickReserve: (tile) => _("pick reserve tile {tile} to build", { tile }),
  pickRedesign: (tile) => _("pick {tile} to redesign", { tile }),
  buildHere: (tile, where) => _("build {tile} here, {where}", { tile, where }),
  swapWith: (tile, other) => _("swap {tile} for {other} from your reserve", { tile, other }),
  tileAt: (tile, where) => _("{tile}, {where}", { tile, where }),
  redesignable: _("can be redesigned"),

  // your move
  yourMove: _("Your move"),
  waitingFor: (name) => _("Waiting for {name}.", { name }),
  buyTile: (tile, space, currency) => _("Buy {tile} from space {space} with {currency}. "
                                        + "Pay with:", { tile, space, currency }),
  exactAgain: _("exact: you may act again"),
  overPays: (n) => _("over-pays by {n}", { n }),
  buy: (tile) => _("buy {tile}", { tile }),
  exact: _("exact"),
  overPay: _("over-pay"),
  exactTitle: _("You paid exactly: you may take another action."),
  exactAct: _("Act again: take money, buy another tile or redesign your city; your turn "
              + "goes on."),
  exactPlace: _("Place it now"),
  exactPlaceNote: _("placing a tile ends your actions: the turn ends once your tiles are "
                    + "placed"),
  buildFromReserve: (tile) => _("Build {tile} from your reserve: choose a highlighted free "
                                + "cell, or a marked tile of your city to swap it with.",
                                { tile }),
  redesignTile: (tile) => _("Redesign: {tile}.", { tile }),
  toReserve: _("Move it to your reserve"),
  orSwap: _("Or swap it with a marked tile of your reserve."),
  chooseElse: _("Choose something else"),
  endActions: _("End my actions (then place the tiles)"),
  endTurn: _("End my turn"),
  youMay: (bits) => _("You may {actions}.", { actions: bits.join(", ") }),
  mayTake: _("take money from the display"),
  mayBuy: _("pick a market tile to buy"),
  mayPlace: _("pick a tile to place"),
  mayRedesign: _("pick a reserve or city tile to redesign"),
  chooseBelow: _("Choose a move below."),
  placeTile: (tile) => _("Place {tile}: choose a highlighted cell of your city, or:", { tile }),
  noCell: (tile) => _("{tile} fits no free cell of your city:", { tile }),
  noCellOffer: _("It can go to your reserve:"),
  asItLies: (name, value) => _("As it lies: {name} {value}", { name, value }),
  flipTo: (name, value) => _("Flip: {name} {value}", { name, value }),
  face: _("face"),
  payment: _("payment"),
  flipCost: _("Flipping costs at least 3 in one currency (free into the reserve). Pay with:"),
  putReserve: (flipped) => (flipped ? _("Put it, flipped, into your reserve")
                                    : _("Put it into your reserve")),
  giveNeutral: (flipped, name) => (flipped ? _("Give it, flipped, to {name}", { name })
                                           : _("Give it to {name}", { name })),
  cannotBuy: (tile, price, code, held) => _(
    "You cannot buy {tile}: it costs {price} and you hold {held} in {currency}.",
    { tile, price: amount(code, price), held, currency: CURRENCY_NAMES[code][1] }),
  unaffordable: (tile) => _("{tile} (more than your money: why?)", { tile }),

  // market
  market: _("Market"),
  space: (n, symbol, currency) => `${n} · ${symbol} ${currency}`,
  youHold: (n) => _("you: {n}", { n }),
  moneyDisplay: _("Money display"),
  take: (card) => _("take {card}", { card }),
  takeSeveral: (cards_) => _("Take {cards}", { cards: cards_.join(" + ") }),
  orSeveral: _("Or several cards (at most 5 in all):"),
  stock: (deck, discard, bags, done) => _(
    "Deck {cards}, discard {discard}; bag {bags}; scorings done: {done} of 3.",
    { cards: cards(deck), discard, bags, done }),
  marker: (back) => ` ${back ? _("New Granada tiles come up on their back (odd) side.")
                             : _("New Granada tiles come up on their front (even) side.")}`,

  // players
  players: _("Players"),
  cityCol: _("City"),
  cardsCol: _("Cards"),
  reserveCol: _("Reserve"),
  you: ` ${_("(you)")}`,
  majorities: _("Majorities: buildings in each city"),
  type: _("Type"),
  most: ` ${_("(most)")}`,
  neutralTiles: (name, n) => _("{name}'s tiles ({count})", { name, count: n }),
  cities: _("Cities"),
  otherPlayers: _("Other players"),
  seatSummary: (s) => _("{name}: {points}, {cards}, {tiles} in the city, {reserve} in the "
                        + "reserve", { name: s.name, points: points(s.score),
                                       cards: cards(s.hand_size),
                                       tiles: tiles(s.city.length - 1),
                                       reserve: s.reserve.length }),
  reserve: `${_("Reserve:")} `,
  reserveOf: (name) => _("{name}'s reserve", { name }),

  // history
  history: _("History"),
  historyLabel: _("what happened, the latest first"),
  allMoves: (n) => _("All your legal moves as text ({count})", { count: n }),

  // tiles in words
  tileWords: (name, value) => `${name} ${value}`,
  barriers: (kind, sides) => {
    if (kind === "walls") {
      return sides.length ? ngettext("a wall {sides}", "walls {sides}", sides.length,
                                     { sides: listing(sides) }) : _("no walls");
    }
    return sides.length ? ngettext("a moat {sides}", "moats {sides}", sides.length,
                                   { sides: listing(sides) }) : _("no moats");
  },
  otherSide: (face, name, value) => _("Granada tile, {face} face; other side {name} {value}",
                                      { face, name, value }),
  faceNames: { front: _("front"), back: _("back") },

  // the language switcher
  language: _("Language"),
  onVacation: (name, when) => _("{name} is on vacation until {when}: that clock stands "
                                + "still.", { name, when }),

  // table talk (chat.js: C)
  talkLabel: _("Table talk"),
  notesLabel: _("Your private notes"),
};

// The table talk and the notes (chat.js)
export const C = {
  title: _("Table talk"),
  messagesLabel: _("Messages, the newest last"),
  unread: (n) => ngettext("({n} unread)", "({n} unread)", n),
  host: _("the host"),
  seat: (n) => _("Seat {n}", { n }),
  toYou: _("to you"),
  to: (name) => _("to {name}", { name }),
  deleted: _("deleted by the host"),
  none: _("No messages yet."),
  toLabel: _("To"),
  table: _("everyone"),
  textLabel: _("Your message"),
  placeholder: _("Say something to the table…"),
  send: _("Send"),
  keys: _("Enter sends, Shift+Enter starts a new line."),
  notesTitle: _("Your notes"),
  notesPrivate: _("Only you ever see these."),
  notesLabel: _("Your private notes"),
  saveNotes: _("Save notes"),
  notesSaved: _("Saved."),
  settings: _("Talk settings"),
  mute: (name) => _("Mute {name}", { name }),
  byMail: _("Messages by mail:"),
  withNext: _("with my next mail"),
  atOnce: _("a mail for each message"),
  notesInMail: _("Show my notes in my mails"),
  settingsSaved: _("Saved."),
};

// The replay
export const R = {
  pageTitle: _("Replay · alhambra-pbem"),
  title: _("Replay"),
  theGame: _("the game"),
  loading: _("Loading the game…"),
  controls: _("Replay controls"),
  first: _("« Start"),
  firstTitle: _("The start (Home)"),
  prev: _("◀ Back"),
  prevTitle: _("The move before (←)"),
  next: _("Next ▶"),
  nextTitle: _("The next move (→)"),
  last: _("End »"),
  lastTitle: _("The end (End)"),
  keys: _("Keys: ← → step, Home / End, PgUp / PgDn: scorings"),
  thisMove: _("This move"),
  tableLabel: _("Market, money and scores"),
  cities: _("Cities"),
  cannot: (why) => _("This game cannot be replayed: {why}", { why }),
  title2: (variant, names) => _("Replay: {variant} · {names}", { variant, names }),
  notStarted: _("This game has not started: there is nothing to replay yet."),
  runningGame: _("A running game is replayed from a seat's own link, in that seat's view "
                 + "only; anyone may replay it once it is over."),
  overStep: _("The game is over: step through it."),
  soFar: (name) => _("The game so far, as your seat saw it ({name}).", { name }),
  step: (i, count) => (i ? _("Move {i} of {count}", { i, count })
                         : ngettext("The setup ({n} move follows)",
                                    "The setup ({n} moves follow)", count)),
  afterSetup: _("The table after the setup"),
  neutral: (pts, n) => _("Neutral: {points}, {tiles}", { points: points(pts), tiles: tiles(n) }),
  scoringDue: (n) => _("The {scoring} comes at the end of this turn",
                       { scoring: SCORINGS[n] || String(n) }),
  finalScores: _("Final scores"),
  turn: (n) => _("Turn {n}", { n }),
  player: _("Player"),
  points: _("Points"),
  money: _("Money"),
  market: _("Market"),
  moneyOnTable: _("Money on the table"),
  toPlace: `${_("To place:")} `,
  reserve: `${_("Reserve:")} `,
  stopped: (why) => _("The replay stopped: {why}", { why }),
  bot: (level) => _("(bot: {level})", { level: BOTS[level] || level }),
  cityCaption: (name, pts) => _("{name}: {points}", { name, points: pts }),
  noscript: _("This page needs JavaScript."),
};

// The lobby
export const L = {
  pageTitle: _("alhambra-pbem: Alhambra, Granada, Alhambra + Granada by mail and in the "
               + "browser"),
  lobbyTitle: _("Play Alhambra and Granada, a move a day"),
  rules: _("rules"),
  apiDocs: _("API docs"),
  newGame: _("New game"),
  game: _("Game"),
  playersField: _("Players"),
  timeControl: _("Time control"),
  hour1: ngettext("{n} hour", "{n} hours", 1),
  hours12: ngettext("{n} hour", "{n} hours", 12),
  day1: ngettext("{n} day", "{n} days", 1),
  days2: ngettext("{n} day", "{n} days", 2),
  days3: ngettext("{n} day", "{n} days", 3),
  days7: ngettext("{n} day", "{n} days", 7),
  // a time control of GET /time-controls (or a fast time per move), in words
  span: (seconds) => {
    if (seconds % 86400 === 0) return ngettext("{n} day", "{n} days", seconds / 86400);
    if (seconds % 3600 === 0) return ngettext("{n} hour", "{n} hours", seconds / 3600);
    return ngettext("{n} minute", "{n} minutes", Math.round(seconds / 60));
  },
  perMove: (time) => _("{time} per move", { time }),
  bank: (bank, increment, cap) => _("a bank of {bank}, +{increment} a move, at most {cap}",
                                    { bank, increment, cap }),
  weekendsOff: (zone) => ` ${_("weekends off: no clock runs on Saturday or Sunday ({zone})",
                               { zone })}`,
  create: _("Create the game"),
  openGames: _("Open games: join one"),
  askInvite: _("Ask the game's creator for its invite code."),
  options: {
    simple_scoring: _("Simple scoring (Granada's fixed points per type, G-5)"),
    dirk_third_draw_cap: _("Dirk's draw after the second scoring is at most 6 tiles (A-8a)"),
    both_money_decks: _("Both money decks: 216 cards (C-1a)"),
  },
  variantOption: (name, min, max) => _("{name} ({min}-{max} players)", { name, min, max }),
  seatsLegend: _("Seats (an open seat is filled with the invite code)"),
  seatName: (i) => `${_("Seat {n} name", { n: i })} `,
  email: `${_("e-mail (optional)")} `,
  seatLanguage: `${_("language")} `,
  openSeat: ` ${_("open seat")}`,
  optionsLegend: _("Options"),
  defaultName: (i) => _("Player {n}", { n: i }),
  created: _("Game created"),
  secretLinks: _("Each player's link is secret: it holds their seat's key. Send each one "
                 + "their own link."),
  invite: `${_("Invite code for the open seats:")} `,
  watch: `${_("Watch:")} `,
  hostToken: _("Host token (lists your games, registers webhooks)"),
  gameLine: (variant, n, names) => _("{variant}, {players}: {names}", {
    variant, players: players(n), names }),
  open: _("(open)"),
  inviteCode: `${_("Invite code")} `,
  yourName: `${_("Your name")} `,
  join: _("Join"),
  joined: (seat) => `${_("You have seat {seat}. Your secret link:", { seat })} `,
  noOpenGames: _("No open games."),
  wrong: _("something went wrong"),
  myGames: _("my games"),
  seatPlayer: `${_("played by")} `,
  person: _("a person"),
  botLevel: (level) => _("a {level} bot", { level: BOTS[level] || level }),
  public: ` ${_("public: anyone may join the open seats, no invite code")}`,
  publicGame: _("Public: join with your name, no invite code."),
  joinSignedIn: _("Join (signed in)"),
  gamesInPlay: _("Public games in play: watch one"),
  noGamesInPlay: _("No public games in play."),
};

// A player's page (/me): sign in, my games, preferences
export const M = {
  pageTitle: _("My games · alhambra-pbem"),
  myGames: _("My games"),
  rules: _("rules"),
  signIn: _("Sign in"),
  signInWhy: _("No password: we mail you a code and a link."),
  yourEmail: _("Your e-mail"),
  sendCode: _("Mail me a code"),
  theCode: _("The code from the mail"),
  signInButton: _("Sign in"),
  sent: (email) => _("A code is on its way to {email}. It works once, for 15 minutes.",
                     { email }),
  finishedGames: _("Finished games"),
  preferences: _("Preferences"),
  signedInAs: (email) => _("Signed in as {email}", { email }),
  switchTitle: _("Another address's link"),
  switchAsk: (email) => _("You are signed in as {email}. This link signs in whoever asked "
                          + "for it, perhaps not you: sign in with it?", { email }),
  switchYes: _("Sign in with the link"),
  switchNo: _("Stay signed in"),
  offeredTitle: _("Seats offered to you"),
  offeredWhy: _("A game's creator wrote your address on these seats. Until you claim one, "
                + "it counts for nobody: no rating, no vacation."),
  claim: _("Claim this seat"),
  mailLanguage: _("Language of my mails"),
  notifyField: _("Mails"),
  notifyTurn: _("a mail for each of my turns"),
  notifyDigest: _("one mail a day"),
  notifyNone: _("no mails"),
  save: _("Save"),
  saved: _("Saved."),
  signOut: _("Sign out"),
  pushTitle: _("Notifications on this device"),
  pushOn: _("Turn on notifications"),
  pushOff: _("Turn off notifications"),
  pushIsOn: _("This device is told of your turns, deadlines near and games over."),
  pushIsOff: _("Notifications are off on this device."),
  pushUnsupported: _("This browser cannot show notifications from this page."),
  pushDenied: _("The browser does not allow notifications from this page."),
  pushChannel: (when) => _("A device added {when}", { when }),
  pushFailing: (n, error) => ngettext("{n} delivery failed: {error}",
                                      "{n} deliveries failed in a row: {error}", n,
                                      { error }),
  yourTurns: (n) => ngettext("your turn in {n} game", "your turn in {n} games", n),
  yourTurn: _("Your turn"),
  waitingFor: (name) => _("Waiting for {name}", { name }),
  waitingForPlayers: _("Waiting for players to join"),
  over: _("Over"),
  deadline: (when) => _("your deadline: {when}", { when }),
  open: _("Open"),
  noGames: _("No games yet: create or join one in the lobby."),
  noFinished: _("No finished games."),
  gameLine: (variant, names) => _("{variant}: {names}", { variant, names }),
  wrong: _("something went wrong"),
  myRatings: _("My ratings"),
  digestHour: _("Hour of the daily mail (UTC)"),
  noRatings: _("None yet: a finished game of people only is rated."),
  rating: (variant, value, games) => ngettext("{variant}: {rating} (after {n} rated game)",
                                              "{variant}: {rating} (after {n} rated games)",
                                              games, { variant, rating: value }),
  // invitations by handle (GET /invitations)
  invitationsTitle: _("Invitations"),
  invitationsReceived: _("Invitations to you"),
  invitationsSent: _("Invitations you sent"),
  invitationsClosed: _("Closed this week"),
  invitesYou: (name) => _("{name} invites you", { name }),
  youInvite: (names) => _("You invite {names}", { names }),
  invitationFrom: (name) => _("From {name}", { name }),
  invitationTo: (names) => _("To {names}", { names }),
  // TRANSLATORS: the player's own name in a list of who accepted an invitation
  you: _("you"),
  deletedAccount: _("a deleted account"),
  botAccount: (name) => _("{name} (bot)", { name }),
  answersUntil: (when) => _("answers until {when}", { when }),
  acceptedSoFar: (names) => _("accepted so far: {names}", { names }),
  nobodyAccepted: _("nobody has accepted yet"),
  noAnswerYet: (names) => _("no answer yet: {names}", { names }),
  youAccepted: _("You accepted: the game is made when everyone has."),
  accept: _("Accept"),
  decline: _("Decline"),
  cancelInvitation: _("Cancel the invitation"),
  gameMade: _("The game is made."),
  openTheGame: _("Open the game"),
  declinedBy: (name) => _("Declined by {name}.", { name }),
  cancelledByInviter: _("Cancelled by the inviter."),
  expiredUnanswered: _("Expired before everyone answered."),
  invitePlayers: _("Invite players"),
  inviteHandles: _("Their handles, separated by commas"),
  inviteGame: _("Game"),
  inviteTime: _("Time per move"),
  sendInvitation: _("Send the invitation"),
  invitationSent: _("Invitation sent."),
};

const FORMATS = {
  swiss: _("Swiss by tables"),
  round_robin: _("Round robin in groups"),
  knockout: _("Knockout by tables"),
  league: _("League"),
};
const STATUSES = {
  open: _("open for entries"),
  running: _("in play"),
  finished: _("finished"),
};

/** "1 entrant", "5 entrants". */
function entrants(n) {
  return ngettext("{n} entrant", "{n} entrants", n);
}

/** "5 entrants", or "5 entrants, at most 8" with a cap. */
function entrantsCap(n, cap) {
  return cap ? _("{entrants}, at most {cap}", { entrants: entrants(n), cap }) : entrants(n);
}

// A tournament's page (/tournament/<id>) and the lobby's lists of tournaments
export const T = {
  pageTitle: (name) => _("{name} · tournament · alhambra-pbem", { name }),
  tournament: _("Tournament"),
  myGames: _("my games"),
  rules: _("rules"),
  loading: _("Loading the tournament…"),
  notFound: _("No such tournament"),
  about: _("The tournament"),
  entrants: _("Entrants"),
  standings: _("Standings"),
  schedule: _("Schedule"),
  rank: _("Rank"),
  player: _("Player"),
  group: _("Group"),
  division: _("Division"),
  pointsCol: _("Points"),
  scoreCol: _("Score"),
  opponentsCol: _("Opponents' points"),
  playedCol: _("Played"),
  byesCol: _("Byes"),
  format: (code) => FORMATS[code] || code,
  status: (code) => STATUSES[code] || code,
  organiser: _("Organiser"),
  gameField: _("Game"),
  formatField: _("Format"),
  tablesField: _("Tables"),
  statusField: _("Status"),
  roundField: _("Round"),
  entrantsField: _("Entrants"),
  clockField: _("Time control"),
  ratingField: _("Rating for entry"),
  tableSize: (size, least) => (least < size
    ? _("{size} players, {least} when the entrants do not divide", { size, least })
    : _("{size} players", { size })),
  roundOf: (n, of) => _("{n} of {of}", { n, of }),
  seasonRound: (season, n) => _("season {season}, round {n}", { season, n }),
  notStarted: _("not started"),
  entrantsCount: entrantsCap,
  ratingRange: (low, high) => {
    if (low != null && high != null) return _("{low} to {high}", { low, high });
    if (low != null) return _("{low} or more", { low });
    return _("{high} or less", { high });
  },
  entryField: _("Entry"),
  byInvitation: (names) => _("by invitation: {names}", { names }),
  noEntrants: _("No entrants yet."),
  withdrawn: _("withdrawn"),
  inactive: _("inactive: a bot took a seat"),
  organiserMark: _("organiser"),
  enter: _("Enter the tournament"),
  enterAgain: _("Enter again"),
  withdraw: _("Withdraw"),
  start: _("Start the tournament"),
  entered: _("You are entered."),
  signInToEnter: _("Sign in on your games' page to enter:"),
  signInLink: _("sign in"),
  standingsAfter: (n) => _("Standings after round {n}", { n }),
  standingsDuring: (n) => _("Standings while round {n} is played (its byes counted)", { n }),
  round: (n) => _("Round {n}", { n }),
  seasonOf: (season) => _("season {season}", { season }),
  roundOver: _("over"),
  roundPlaying: _("in play"),
  tablesCaption: (n) => _("Round {n}: tables, players in seat order", { n }),
  tableCol: _("Table"),
  playersCol: _("Players"),
  gameCol: _("Game"),
  table: (n) => _("Table {n}", { n }),
  inGroup: (name, group) => _("{name}, group {group}", { name, group }),
  inDivision: (name, division) => _("{name}, division {division}", { name, division }),
  tableGame: (n) => _("game of table {n}", { n }),
  noGameYet: _("no game yet"),
  left: _("left: ranks last"),
  yourTable: _("your table"),
  byes: (names, pts) => _("Byes: {names} ({points} each)", { names, points: pts }),
  noRounds: _("No rounds yet: the organiser starts the tournament."),
  // the lobby's lists
  noOpenTournaments: _("No open tournaments."),
  noRunningTournaments: _("No tournaments in play."),
  tournamentLine: (format, size, n, cap, organiser) => _(
    "{format}, tables of {size}, {entrants}; organised by {organiser}", {
      format: FORMATS[format] || format, size, organiser, entrants: entrantsCap(n, cap) }),
  // the lobby's words (its static HTML's data-s keys)
  lobby: {
    openTournaments: _("Open tournaments: enter one"),
    runningTournaments: _("Tournaments in play"),
    organise: _("Organise a tournament"),
    tournamentName: _("Name"),
    formatField: _("Format"),
    swiss: FORMATS.swiss,
    roundRobin: FORMATS.round_robin,
    knockout: FORMATS.knockout,
    league: FORMATS.league,
    tableSizeField: _("Players at a table"),
    roundsField: _("Rounds (a league's: seasons)"),
    capField: _("At most this many entrants (optional)"),
    organiseButton: _("Make the tournament"),
  },
  wrong: _("something went wrong"),
};
