// Every word the pages show, in one place (to be translated later: el, fi, da, ru).
// The event lines of the history come from the API (engine/describe.py), not from here.

/** "1 card", "3 cards". */
export function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

export const VARIANT_NAMES = {
  alhambra: "Alhambra",
  granada: "Granada",
  alhambra_granada: "Alhambra + Granada",
};

// Building types: name, name on the tile (always there), plural.
export const BUILDING_NAMES = {
  start: ["start tile", "start", "start tiles"],
  pavilion: ["pavilion", "Pavilion", "pavilions"],
  seraglio: ["seraglio", "Seraglio", "seraglios"],
  arcades: ["arcades", "Arcades", "arcades"],
  chambers: ["chambers", "Chambers", "chambers"],
  garden: ["garden", "Garden", "gardens"],
  tower: ["tower", "Tower", "towers"],
  arena: ["arena", "Arena", "arenas"],
  bath_house: ["bath house", "Bath house", "bath houses"],
  library: ["library", "Library", "libraries"],
  hostel: ["hostel", "Hostel", "hostels"],
  hospital: ["hospital", "Hospital", "hospitals"],
  market: ["market", "Market", "markets"],
  park: ["park", "Park", "parks"],
  school: ["school", "School", "schools"],
  residential_area: ["residential area", "Residential area", "residential areas"],
};

export const CURRENCY_NAMES = {
  DE: ["denar", "denars"], DI: ["dirham", "dirhams"], DU: ["ducat", "ducats"],
  FL: ["florin", "florins"],
};

export const SIDES = { n: "north", e: "east", s: "south", w: "west" };
const DIRECTIONS = { "0,-1": "north", "1,-1": "north-east", "1,0": "east", "1,1": "south-east",
                     "0,1": "south", "-1,1": "south-west", "-1,0": "west", "-1,-1": "north-west" };
const ORDINALS = { 1: "1st", 2: "2nd", 3: "3rd" };

/** Where a cell is, from the start tile, as the history says it. */
export function cellWords(x, y, fountain = true) {
  const start = fountain ? "the fountain" : "the start tile";
  const near = DIRECTIONS[`${x},${y}`];
  if (near) return `${near} of ${start}`;
  const steps = [];
  if (x) steps.push(`${Math.abs(x)} ${x > 0 ? "east" : "west"}`);
  if (y) steps.push(`${Math.abs(y)} ${y > 0 ? "south" : "north"}`);
  return `${steps.join(" and ")} of ${start}`;
}

export const S = {
  // the page's static HTML (data-s, data-s-label)
  skip: "Skip to your city",
  spectatorView: "spectator view",
  rules: "rules",
  loading: "Loading the game…",
  marketLabel: "Market and money display",
  lastLabel: "The last turn",
  scorings: "Scorings",
  meLabel: "Your city, money and reserve",
  allMovesLabel: "All legal moves",

  // the page
  gameTitle: (variant, id) => `${variant} · game ${id}`,
  noGameTitle: "No such game",
  noGame: "There is no game at this address: check the link you were sent.",
  notAGame: "This is not a game's address.",
  round: (n) => `Round ${n}`,
  live: "live",
  offline: "offline",
  waitingPlayers: (n) => `Waiting for ${plural(n, "more player", "more players")} to join: `
                         + "the game starts when every seat is taken.",
  seats: "Seats",
  openSeat: "(open seat)",
  gameOver: "Game over.",
  yourTurnWhat: { action: "take money, buy, or redesign",
                  placement: "place the tiles you bought",
                  distribution: "place the tile you received" },
  yourTurn: (what) => `Your turn: ${what}.`,
  theirTurn: (name) => `${name}'s turn.`,
  deadline: (text) => ` Deadline: ${text}.`,
  deadlinePassed: "passed",
  inMinutes: (n) => `in ${n} min`,
  inHours: (n) => `in ${n} h`,
  inDays: (n) => `in ${plural(n, "day", "days")}`,
  done: (lines) => `Done: ${lines.join(". ")}.`,
  planOverruled: (lines) => `The game moved on while you planned: ${lines.join(". ")}. `
    + "Nothing of your plan was sent: plan your turn again.",
  movedOn: "The game moved on while you were choosing: the page shows it again. Choose again.",
  rule: "rule",
  unreachable: "the server cannot be reached; check the connection and try again",

  // clocks
  units: { day: ["day", "days"], hour: ["hour", "hours"], minute: ["minute", "minutes"],
           second: ["second", "seconds"] },
  twoUnits: (big, small) => `${big} ${small}`,
  noTimeLeft: "No time left.",
  leftInYourBank: (time) => `${time} left in your bank.`,
  leftForYourMove: (time) => `${time} left for this move.`,
  leftInBank: (name, time) => `${name}: ${time} left in the bank.`,
  leftForMove: (name, time) => `${name}: ${time} left for this move.`,
  weekendOff: (when) => `Weekend off: the clocks run again ${when}.`,
  dayOff: (when) => `A day off: the clocks run again ${when}.`,
  timeLeft: "time left: ",
  inTheBank: (time) => `${time} in the bank`,

  // a planned turn
  turnPlanned: (n) => `Your turn, planned: ${plural(n, "move", "moves")}, not sent yet.`,
  planLabel: "Your planned turn",
  planTitle: "Planned, not sent yet",
  planEnds: "These moves end your turn: send them, or undo a move to plan it otherwise.",
  planGoesOn: "Plan on, or send these moves now: your turn goes on after them.",
  planComplete: "Your turn is planned.",
  sendTurn: "Send turn",
  sendMoves: "Send these moves",
  undo: "Undo",

  // final scores
  finalScores: "Final scores",
  winners: (names, n) => `${n > 1 ? "Winners" : "Winner"}: ${names}.`,
  and: " and ",
  player: "Player",
  points: "Points",
  winner: " (winner)",
  neutral: (name) => `${name} (neutral)`,
  theNeutral: "the neutral player",
  replay: "Step through the game move by move",
  record: "The game record",
  recordNote: " (JSON: every move in notation; import it to replay).",

  // the last turn and scorings
  lastTurn: (name) => `Last turn: ${name}`,
  thisTurn: "Your turn so far",
  lastPlaced: "placed last turn",
  newTile: "new",
  scoringTitle: (n) => `${ORDINALS[n] || n} scoring`,
  scoringCaption: (n) => `Points of the ${ORDINALS[n] || n} scoring, per building type and `
                         + "for the longest line",
  scoringWhat: "For",
  total: "Total",
  lines: { wall: "longest wall", moat: "longest moat",
           combined: "longest line of walls and moats" },

  // your city
  yourCity: (name, points) => `Your city · ${name} · ${plural(points, "point", "points")}`,
  tilesToPlace: "Tiles to place",
  yourMoney: (n) => `Your money (${plural(n, "card", "cards")})`,
  yourReserve: (n) => `Your reserve (${n})`,
  empty: "Empty.",
  noMoney: "No money cards.",
  moneyByCurrency: "your money by currency",
  cityLabel: (name) => `${name}'s city`,
  pickToPlace: (tile) => `pick ${tile} to place`,
  pickToPlaceEnds: (tile) => `pick ${tile} to place now (this ends your actions)`,
  pickReserve: (tile) => `pick reserve tile ${tile} to build`,
  pickRedesign: (tile) => `pick ${tile} to redesign`,
  buildHere: (tile, where) => `build ${tile} here, ${where}`,
  swapWith: (tile, other) => `swap ${tile} for ${other} from your reserve`,
  tileAt: (tile, where) => `${tile}, ${where}`,
  redesignable: "can be redesigned",

  // your move
  yourMove: "Your move",
  waitingFor: (name) => `Waiting for ${name}.`,
  buyTile: (tile, space, currency) => `Buy ${tile} from space ${space} with ${currency}. `
                                      + "Pay with:",
  exactAgain: "exact: you may act again",
  overPays: (n) => `over-pays by ${n}`,
  buy: (tile) => `buy ${tile}`,
  exact: "exact",
  overPay: "over-pay",
  exactTitle: "You paid exactly: you may take another action.",
  exactAct: "Act again: take money, buy another tile or redesign your city; your turn goes on.",
  exactPlace: "Place it now",
  exactPlaceNote: "placing a tile ends your actions: the turn ends once your tiles are placed",
  buildFromReserve: (tile) => `Build ${tile} from your reserve: choose a highlighted free `
                              + "cell, or a marked tile of your city to swap it with.",
  redesignTile: (tile) => `Redesign: ${tile}.`,
  toReserve: "Move it to your reserve",
  orSwap: "Or swap it with a marked tile of your reserve.",
  chooseElse: "Choose something else",
  endActions: "End my actions (then place the tiles)",
  endTurn: "End my turn",
  youMay: (bits) => `You may ${bits.join(", ")}.`,
  mayTake: "take money from the display",
  mayBuy: "pick a market tile to buy",
  mayPlace: "pick a tile to place",
  mayRedesign: "pick a reserve or city tile to redesign",
  chooseBelow: "Choose a move below.",
  placeTile: (tile) => `Place ${tile}: choose a highlighted cell of your city, or:`,
  noCell: (tile) => `${tile} fits no free cell of your city:`,
  noCellOffer: "It can go to your reserve:",
  asItLies: (name, value) => `As it lies: ${name} ${value}`,
  flipTo: (name, value) => `Flip: ${name} ${value}`,
  face: "face",
  payment: "payment",
  flipCost: "Flipping costs at least 3 in one currency (free into the reserve). Pay with:",
  putReserve: (flipped) => `Put it${flipped ? ", flipped," : ""} into your reserve`,
  giveNeutral: (flipped, name) => `Give it${flipped ? ", flipped," : ""} to ${name}`,
  cannotBuy: (tile, price, currency, held) => `You cannot buy ${tile}: it costs ${price} `
    + `${currency} and you hold ${held} in ${currency}.`,
  unaffordable: (tile) => `${tile} (more than your money: why?)`,

  // market
  market: "Market",
  space: (n, symbol, currency) => `${n} · ${symbol} ${currency}`,
  youHold: (n) => `you: ${n}`,
  moneyDisplay: "Money display",
  take: (card) => `take ${card}`,
  takeSeveral: (cards) => `Take ${cards.join(" + ")}`,
  orSeveral: "Or several cards (at most 5 in all):",
  stock: (deck, discard, bags, done) => `Deck ${plural(deck, "card", "cards")}, discard `
    + `${discard}; bag ${bags}; scorings done: ${done} of 3.`,
  marker: (back) => ` New Granada tiles come up on their ${back ? "back (odd)" : "front (even)"}`
                    + " side.",

  // players
  players: "Players",
  cityCol: "City",
  cardsCol: "Cards",
  reserveCol: "Reserve",
  you: " (you)",
  majorities: "Majorities: buildings in each city",
  type: "Type",
  most: " (most)",
  neutralTiles: (name, n) => `${name}'s tiles (${n})`,
  cities: "Cities",
  otherPlayers: "Other players",
  seatSummary: (s) => `${s.name}: ${plural(s.score, "point", "points")}, `
    + `${plural(s.hand_size, "card", "cards")}, ${plural(s.city.length - 1, "tile", "tiles")} `
    + `in the city, ${s.reserve.length} in the reserve`,
  reserve: "Reserve: ",
  reserveOf: (name) => `${name}'s reserve`,

  // history
  history: "History",
  historyLabel: "what happened, the latest first",
  allMoves: (n) => `All your legal moves as text (${n})`,

  // tiles in words
  tileWords: (name, value) => `${name} ${value}`,
  barriers: (kind, sides) => (sides.length ? `${kind} ${sides.join(", ")}`
                                            : `no ${kind}`),
  otherSide: (face, name, value) => `Granada tile, ${face} face; other side ${name} ${value}`,
  faceNames: { front: "front", back: "back" },
};

// The lobby
export const L = {
  pageTitle: "alhambra-pbem: Alhambra, Granada, Alhambra + Granada by mail and in the browser",
  lobbyTitle: "Play Alhambra and Granada, a move a day",
  rules: "rules",
  apiDocs: "API docs",
  newGame: "New game",
  game: "Game",
  playersField: "Players",
  timePerMove: "Time per move",
  hour1: "1 hour",
  hours12: "12 hours",
  day1: "1 day",
  days2: "2 days",
  days3: "3 days",
  days7: "7 days",
  create: "Create the game",
  openGames: "Open games: join one",
  askInvite: "Ask the game's creator for its invite code.",
  options: {
    simple_scoring: "Simple scoring (Granada's fixed points per type, G-5)",
    dirk_third_draw_cap: "Dirk's draw after the second scoring is at most 6 tiles (A-8a)",
    both_money_decks: "Both money decks: 216 cards (C-1a)",
  },
  variantOption: (name, min, max) => `${name} (${min}-${max} players)`,
  seatsLegend: "Seats (an open seat is filled with the invite code)",
  seatName: (i) => `Seat ${i} name `,
  email: "e-mail (optional) ",
  openSeat: " open seat",
  optionsLegend: "Options",
  defaultName: (i) => `Player ${i}`,
  created: "Game created",
  secretLinks: "Each player's link is secret: it holds their seat's key. Send each one their "
               + "own link.",
  invite: "Invite code for the open seats: ",
  watch: "Watch: ",
  hostToken: "Host token (lists your games, registers webhooks)",
  gameLine: (variant, players, names) => `${variant}, ${plural(players, "player", "players")}: `
                                          + names,
  open: "(open)",
  inviteCode: "Invite code ",
  yourName: "Your name ",
  join: "Join",
  joined: (seat) => `You have seat ${seat}. Your secret link: `,
  noOpenGames: "No open games.",
  wrong: "something went wrong",
};
