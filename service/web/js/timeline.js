// A game's steps for the replay page: the events the API serves (GET /games/{id}/events,
// redacted for the viewer) folded into what the table showed after each move: market,
// money display, cities, reserves, hands, scores. No rules here: every outcome is in the
// events; the tiles' faces and barriers come from the game's latest view (every tile
// that ever left a bag is in it).

/** Tile facts by id from a view: barriers and both faces (front first). */
export function tileCatalog(view) {
  const catalog = new Map();
  const starts = [];
  const add = (t) => {
    const faces = [{ type: t.type, value: t.value }];
    if (t.other_side) {
      const other = { type: t.other_side.type, value: t.other_side.value };
      if (t.face === "back") faces.unshift(other); else faces.push(other);
    }
    catalog.set(t.id, { id: t.id, walls: t.walls, moats: t.moats, faces });
  };
  for (const seat of view.seats) {
    for (const t of seat.city) {
      add(t);
      if (t.type === "start") starts[seat.seat] = { id: t.id, x: t.x, y: t.y };
    }
    seat.reserve.forEach(add);
  }
  view.market.forEach((space) => space.tiles.forEach(add));
  (view.pending || []).forEach(add);
  if (view.neutral) view.neutral.tiles.forEach(add);
  return { catalog, starts };
}

function removeCards(hand, cards) {
  for (const c of cards) {
    const i = hand.indexOf(c);
    if (i >= 0) hand.splice(i, 1);
  }
}

function remove(list, item) {
  const i = list.indexOf(item);
  if (i >= 0) list.splice(i, 1);
}

function clone(state) {
  return {
    ...state,
    market: state.market.map((s) => [...s]),
    display: [...state.display],
    hands: state.hands.map((h) => [...h]),
    cities: state.cities.map((c) => new Map(c)),
    reserves: state.reserves.map((r) => [...r]),
    neutral: [...state.neutral],
    scores: [...state.scores],
    faces: { ...state.faces },
    pending: [...state.pending],
    bots: { ...state.bots },
  };
}

const FOLD = {
  game_created(st, e) {
    const n = e.seats.length;
    st.variant = e.variant;
    st.seats = [...e.seats];
    st.hands = Array.from({ length: n }, () => []);
    st.cities = Array.from({ length: n }, (_, i) => {
      const start = st.starts[i];
      return new Map(start ? [[`${start.x},${start.y}`, start.id]] : []);
    });
    st.reserves = Array.from({ length: n }, () => []);
    st.scores = Array(n).fill(0);
    (e.bots || []).forEach((level, i) => { if (level) st.bots[i] = level; });
  },
  market_refilled(st, e) {
    st.market[e.space - 1].push(e.tile);
    if (e.face !== undefined) st.faces[e.tile] = e.face;
  },
  neutral_received(st, e) {
    st.neutral.push(...e.tiles);
    (e.faces || []).forEach((f, i) => { st.faces[e.tiles[i]] = f; });
  },
  money_dealt(st, e) { st.hands[e.seat].push(...e.cards); },
  display_refilled(st, e) { st.display.push(...e.cards); },
  card_drawn(st, e) { st.display.push(e.card); },
  scoring_card_drawn(st, e) { st.scoringDue = e.scoring; },
  turn_started(st, e) {
    st.current = e.seat;
    st.turn += 1;
    st.phase = "action";
  },
  seat_taken_over(st, e) { st.bots[e.seat] = e.bot; },
  money_taken(st, e) {
    for (const p of [...e.positions].sort((a, b) => b - a)) st.display.splice(p - 1, 1);
    st.hands[e.seat].push(...e.cards);
  },
  tile_bought(st, e) {
    remove(st.market[e.space - 1], e.tile);
    removeCards(st.hands[e.seat], e.cards);
    st.pending.push(e.tile);
  },
  actions_ended(st) { st.phase = "placement"; },
  tile_placed(st, e) {
    remove(st.pending, e.tile);
    if (e.cards) removeCards(st.hands[e.seat], e.cards);
    if (e.face !== undefined) st.faces[e.tile] = e.face;
    if (e.to === "city") st.cities[e.seat].set(`${e.at[0]},${e.at[1]}`, e.tile);
    else if (e.to === "reserve") st.reserves[e.seat].push(e.tile);
    else st.neutral.push(e.tile);
  },
  redesigned(st, e) {
    const city = st.cities[e.seat];
    const reserve = st.reserves[e.seat];
    const where = () => [...city].find(([, id]) => id === e.tile)?.[0];
    if (e.to === "city") {
      remove(reserve, e.tile);
      city.set(`${e.at[0]},${e.at[1]}`, e.tile);
    } else if (e.to === "reserve") {
      city.delete(where());
      reserve.push(e.tile);
    } else {
      const at = where();
      remove(reserve, e.other);
      city.set(at, e.other);
      reserve.push(e.tile);
    }
    st.phase = "placement";
  },
  points_awarded(st, e) {
    if (e.seat === "neutral") st.neutralScore += e.points; else st.scores[e.seat] += e.points;
  },
  scoring_done(st, e) {
    st.scoringsDone = e.scoring;
    st.scoringDue = null;
  },
  game_ending(st) { st.phase = "distribution"; },
  tile_awarded(st, e) {
    remove(st.market[e.space - 1], e.tile);
    st.pending.push(e.tile);
    st.current = e.seat;
  },
  game_over(st, e) {
    st.phase = "over";
    st.winners = [...e.winners];
  },
};

/**
 * The steps of a game: step 0 is the table after the setup, each further step the table
 * after one move and what followed it (refills, scorings, the next turn). Each step:
 * {state, items (the event items it holds), move (the item of its move, if any),
 * scoring (the number of a scoring done in it, if any)}.
 */
export function timeline(items, view) {
  const { catalog, starts } = tileCatalog(view);
  let state = {
    variant: view.variant, seats: [], market: [[], [], [], []], display: [], hands: [],
    cities: [], reserves: [], neutral: [], scores: [], neutralScore: 0, faces: {},
    pending: [], bots: {}, current: null, phase: "setup", turn: 0, scoringsDone: 0,
    scoringDue: null, winners: [], starts, version: 0,
  };
  const steps = [];
  let step = { items: [], move: null, scoring: null };
  for (const item of items) {
    const e = item.event;
    if (e.move !== undefined) {
      steps.push({ ...step, state: clone(state) });
      step = { items: [], move: item, scoring: null };
    }
    const fold = FOLD[e.type];
    if (fold) fold(state, e);
    state.version = item.version;
    step.items.push(item);
    if (e.type === "scoring_done") step.scoring = e.scoring;
  }
  steps.push({ ...step, state });
  return { steps, catalog };
}

/** A tile as the board module draws it (the view's form), on the face it shows. */
export function tileInfo(catalog, id, faces) {
  const t = catalog.get(id);
  if (!t) return { id, type: "unknown", value: 0 };
  const index = faces[id] || 0;
  const face = t.faces[index] || t.faces[0];
  const out = { id, type: face.type, value: face.value };
  if (t.walls) out.walls = t.walls; else if (t.moats) out.moats = t.moats;
  if (t.faces.length === 2) {
    out.face = index ? "back" : "front";
    out.other_side = t.faces[1 - index];
  }
  return out;
}

/** A seat's city at a step, as the view's seat entry (name and city) board.js draws. */
export function seatView(state, catalog, seat) {
  const city = [...state.cities[seat]].map(([key, id]) => {
    const [x, y] = key.split(",").map(Number);
    return { ...tileInfo(catalog, id, state.faces), x, y };
  });
  city.sort((a, b) => a.y - b.y || a.x - b.x);
  return { seat, name: state.seats[seat], city };
}
