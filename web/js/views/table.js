// The table: four seats around the felt, the trick, one's hand, the
// bidding and exchange controls, the scores and the chat. It draws
// app.table (a TableState) and turns clicks and keys into requests; the
// state changes only when the server's events come back.

import { drawnAs, fill, findByKey, focusKey, formatClock, h, redraw } from '../dom.js';
import { sortForProtocol, shortName } from '../cards.js';
import { hashFor } from '../router.js';
import { chatProblem, describe } from '../messages.js';
import { handSizeOf, partnerOf, teamOf, teamsOf } from '../state.js';
import { cardButton, setCardButton } from './card.js';
import {
  bidText, describeEntry, expectedText, handScoreSummary, handScoreTable, hiddenHand, lastTrickPanel,
  namesKey, scoreTable, seatKey, seatPanel, trickCards, teamName,
} from './table-parts.js';

// A won trick stays on the felt this long, so that people see who took it.
const TRICK_HOLD_MS = 1200;
const SCORE_POPUP_MS = 8000;

export function mount(root, app, code) {
  const { client } = app;
  const state = app.table;
  const view = {
    joinError: null,
    joining: false,
    selected: new Set(),
    handFocus: null,
    showLastTrick: false,
    heldTrick: null,
    heldUntil: 0,
    seenWon: state.wonCount,
    trickShown: { base: '', cards: [] },
    seenScores: state.handScores.length,
    popup: null,
    popupUntil: 0,
    announced: state.log.length ? state.log[state.log.length - 1].seq : 0,
    wasMyTurn: false,
    timers: [],
  };

  const bar = h('div', { class: 'table-bar' });
  const seats = [0, 1, 2, 3].map(() => h('div', { class: 'seat-slot' }));
  const trick = h('div', { class: 'trick', 'data-testid': 'trick', 'aria-label': 'Cards on the table', role: 'group' });
  // The words are a live region; the clock beside them is not, or a
  // screen reader would read every tick.
  const indicatorText = h('span', { role: 'status', 'data-testid': 'turn-indicator' });
  const indicatorClock = h('span', { class: 'clock', 'data-testid': 'turn-clock', 'data-clock': '', role: 'timer' });
  const indicator = h('div', { class: 'turn-indicator' }, indicatorText, indicatorClock);
  const popup = h('div', { class: 'popup-slot' });
  const actions = h('div', { class: 'actions', 'data-testid': 'action-panel' });
  const center = h('div', { class: 'felt-center' }, trick, indicator);
  const felt = h('div', { class: 'felt' }, seats, center);
  const belowFelt = h('div', { class: 'below-felt' });
  // On a wide screen the controls sit in the middle of the table, where
  // the eye already is; on a phone the middle is too narrow for them.
  const wide = globalThis.matchMedia ? matchMedia('(min-width: 700px)') : { matches: true };
  const hand = h('div', { class: 'hand', role: 'toolbar', 'aria-label': 'Your hand', 'data-testid': 'hand' });
  const scores = h('section', { class: 'card-panel', 'aria-label': 'Scores' });
  const lastTrick = h('section', { class: 'card-panel', 'aria-label': 'Last trick', 'data-testid': 'last-trick' });
  const handScores = h('section', { class: 'card-panel', 'aria-label': 'Hand scores' });
  const chatLog = h('ol', { class: 'chat-log', 'data-testid': 'chat-log', 'aria-live': 'polite', 'aria-label': 'Chat' });
  const chatInput = h('input', { id: 'chat-input', maxlength: 300, autocomplete: 'off', 'data-testid': 'chat-input' });
  const chatForm = h('form', {
    class: 'chat-form',
    onsubmit: (event) => {
      event.preventDefault();
      const text = chatInput.value.trim();
      if (!text) return;
      // The line stays in the box, so that the player can mend it.
      const problem = chatProblem(text);
      if (problem) {
        app.notify(problem, 'error');
        return;
      }
      chatInput.value = '';
      client.chat(text).catch((error) => app.notify(error, 'error'));
    },
  }, h('label', { for: 'chat-input', class: 'visually-hidden' }, 'Chat message'), chatInput,
  h('button', { type: 'submit', 'data-testid': 'chat-send' }, 'Send'));
  const chat = h('section', { class: 'card-panel chat', 'aria-label': 'Chat' }, h('h2', {}, 'Chat'), chatLog, chatForm);
  const placeholder = h('div', { class: 'table-placeholder' });

  const screen = h('section', { class: 'table-screen', 'aria-labelledby': 'table-title' },
    bar,
    h('div', { class: 'table-layout' },
      h('div', { class: 'table-play' }, felt, h('div', { class: 'dock' }, belowFelt, hand)),
      h('div', { class: 'table-side' }, scores, lastTrick, handScores, chat)));
  root.append(placeholder, screen);

  hand.addEventListener('keydown', (event) => moveInHand(event));

  // Requests. Each shows its refusal in plain words; game actions also
  // mark the state as waiting, so the controls cannot be pressed twice.
  const send = (promise) => promise.catch((error) => app.notify(error, 'error'));
  const act = (move, promise) => {
    state.acted(move);
    app.refresh();
    promise.catch((error) => {
      state.refused();
      app.notify(error, 'error');
      app.refresh();
    });
  };
  const seatActions = {
    sit: (seat) => send(client.sit(seat)),
    addBot: (seat) => send(client.addBot(seat)),
    removeBot: (seat) => send(client.removeBot(seat)),
  };

  function join() {
    if (state.room === code || view.joining || view.joinError || view.leaving) return;
    view.joining = true;
    view.joinError = null;
    client.joinRoom(code).then(() => {
      view.joining = false;
      if (app.seatRoom === code) app.seatRoom = null;
      app.refresh();
    }, (error) => {
      view.joining = false;
      view.joinError = error;
      app.refresh();
    });
  }

  function play(card) {
    if (state.expected === 'play' && state.legalCards.includes(card)) {
      view.handFocus = card;
      act({ type: 'play', card }, client.play(card));
    } else if (state.passCount) {
      if (view.selected.has(card)) view.selected.delete(card);
      else if (view.selected.size < state.passCount) view.selected.add(card);
      else app.announce(`You have chosen ${state.passCount} cards already. Unselect one first.`);
      view.handFocus = card;
      app.refresh();
    }
  }

  function passSelected() {
    const cards = sortForProtocol([...view.selected], state.rules?.deck);
    view.selected.clear();
    // In a simultaneous exchange the cards stay in the hand until the
    // partner has chosen too; remember them to say so.
    state.myPassChosen = cards;
    act({ type: 'pass', cards }, client.passCards(cards));
  }

  // Arrow keys move within the hand; Tab leaves it (one tab stop).
  function moveInHand(event) {
    const buttons = [...hand.querySelectorAll('button[data-card]')];
    const index = buttons.indexOf(document.activeElement);
    if (index < 0) return;
    const targets = {
      ArrowRight: index + 1, ArrowDown: index + 1, ArrowLeft: index - 1, ArrowUp: index - 1,
      Home: 0, End: buttons.length - 1,
    };
    if (!(event.key in targets)) return;
    event.preventDefault();
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, targets[event.key]))];
    for (const button of buttons) button.tabIndex = button === next ? 0 : -1;
    view.handFocus = next.dataset.card;
    next.focus();
  }

  // Drawing. Each part is drawn again only when what it shows has
  // changed (see `redraw`): a played card costs the other pages the trick,
  // a seat and perhaps the hand, not the whole table.

  function drawBar() {
    const link = `${location.origin}/r/${state.room}`;
    const seated = state.seat !== null;
    const key = JSON.stringify([state.name, state.room, state.private, state.isSpectator, state.spectators, seated, state.playing]);
    redraw(bar, key, () => [
      h('h1', { id: 'table-title' }, state.name || `Table ${state.room}`),
      h('span', { class: 'room-code' }, 'Code ', h('code', { 'data-testid': 'room-code' }, state.room)),
      h('button', {
        type: 'button',
        'data-testid': 'room-link',
        onclick: () => {
          const done = () => app.notify('Link copied. Send it to your friends.');
          if (navigator.clipboard) navigator.clipboard.writeText(link).then(done, () => app.notify(link));
          else app.notify(link);
        },
      }, 'Copy link'),
      state.private ? h('span', { class: 'badge' }, 'Private') : null,
      h('span', { class: 'hint' }, state.isSpectator ? `Watching · ${state.spectators} watching` : `${state.spectators} watching`),
      h('span', { class: 'spacer' }),
      seated && !state.playing ? h('button', { type: 'button', 'data-testid': 'stand', onclick: () => send(client.stand()) }, 'Stand up') : null,
      h('button', {
        type: 'button',
        'data-testid': 'leave-room',
        onclick: () => {
          view.leaving = true;
          const leave = () => {
            state.clear();
            app.navigate('lobby');
          };
          client.leaveRoom().then(leave, (error) => {
            if (error.code === 'not_in_room') {
              leave();
              return;
            }
            view.leaving = false;
            app.notify(error, 'error');
          });
        },
      }, state.playing && seated ? 'Leave (a bot plays for you)' : 'Leave table'),
    ]);
  }

  function drawTrick() {
    const now = Date.now();
    if (state.wonCount > view.seenWon && !state.trick) {
      view.heldTrick = state.lastWon;
      view.heldUntil = now + TRICK_HOLD_MS;
      view.timers.push(setTimeout(() => app.refresh(), TRICK_HOLD_MS + 20));
    }
    view.seenWon = state.wonCount;
    if (state.trick) view.heldTrick = null;
    const held = view.heldTrick && now < view.heldUntil ? view.heldTrick : null;
    const shown = state.trick ?? held;
    // A card played to the trick being shown is added to it; the trick
    // is drawn anew only when another one is shown (or the seat changes).
    // Only a card that was not there before animates in.
    const cards = shown ? shown.plays.map((p) => p.card) : [];
    const base = `${Boolean(held)}|${state.seat}`;
    const before = view.trickShown;
    if (before.base !== base || before.cards.some((card, at) => cards[at] !== card)) {
      fill(trick, state.trick ? trickCards(state, state.trick) : trickCards(state, held, { won: true }));
      for (const element of trick.querySelectorAll('[data-card]')) {
        if (!before.cards.includes(element.dataset.card)) element.classList.add('fresh');
      }
    } else if (cards.length > before.cards.length) {
      const added = trickCards(state, { ...shown, plays: shown.plays.slice(before.cards.length) });
      for (const element of added) element.classList.add('fresh');
      trick.append(...added);
    }
    view.trickShown = { base, cards };
    trick.dataset.count = String(shown?.plays.length ?? 0);
    // An empty trick makes room for the bidding and exchange controls.
    trick.classList.toggle('idle', !state.trick && !held && state.phase !== 'playing');
  }

  function drawIndicator() {
    const turn = state.turn;
    let text;
    if (state.phase === 'game over') text = 'Game over.';
    else if (!state.playing) text = state.seatedCount < state.seats.length ? `Waiting for ${state.seats.length === 3 ? 'three' : 'four'} players.` : 'Ready to start.';
    else if (state.pending) text = 'Sending…';
    else if (!turn) text = 'Waiting…';
    else if (state.myTurn) text = `Your turn: ${expectedText(turn.expected, turn.passCount)}.`;
    else {
      const names = turn.seats.map((seat) => state.nameOf(seat)).join(' and ');
      text = `${names} to ${expectedText(turn.expected, null)}.`;
    }
    const showClock = Boolean(turn && state.playing && turn.clockMs > 0);
    indicator.classList.toggle('mine', state.myTurn);
    if (indicatorText.textContent !== text) indicatorText.textContent = text;
    indicatorClock.hidden = !showClock;
  }

  function drawActions() {
    const key = JSON.stringify([
      state.seat, state.status, state.phase, state.seatedCount, state.isOwner, state.winner, state.score, state.gameId,
      state.pending ? null : state.expected, state.hidden, state.passCount, [...view.selected], state.myPassChosen,
      state.passChosen, state.passes, state.tricks.length > 0, view.showLastTrick, state.bids, namesKey(state),
      state.turn?.bids ?? null,
    ]);
    redraw(actions, key, actionParts);
  }

  function actionParts() {
    const parts = [];
    const seated = state.seat !== null;
    if (state.isSpectator) {
      parts.push(h('p', { class: 'hint', 'data-testid': 'spectator-note' },
        state.playing ? 'You are watching. Only public information is shown.' : 'You are watching. Take an empty seat to play.'));
    }
    if (!state.playing && state.phase !== 'game over' && seated) {
      parts.push(h('button', {
        type: 'button', class: 'primary', 'data-testid': 'start-game', disabled: state.seatedCount < state.seats.length,
        onclick: () => send(client.startGame()),
      }, 'Start game'));
      if (state.seatedCount < state.seats.length) {
        parts.push(h('p', { class: 'hint' }, state.isOwner
          ? 'Fill the empty seats with bots, or share the link and wait for players.'
          : 'Waiting for players to fill the empty seats.'));
      }
    }
    if (state.phase === 'game over') parts.push(gameOverPanel());
    if (state.playing && seated) {
      const expected = state.pending ? null : state.expected;
      if (state.hidden) {
        const teamBlind = (state.turn?.bids ?? []).some((bid) => bid > 0);
        parts.push(h('p', { class: 'hint' }, 'You are offered a blind bid: your cards stay hidden until you look. A blind bid scores double.'
          + (expected === 'blind_nil_or_look' && teamBlind ? ' A blind number is your team\'s bid: your partner does not bid.' : '')));
        const buttons = [h('button', { type: 'button', 'data-testid': 'look', 'data-primary': '', onclick: () => act({ type: 'look' }, client.look()) }, 'Look at my cards')];
        if (expected === 'blind_nil_or_look') {
          // The turn lists the blind bids open now: 0 for blind nil, and
          // numbers for the team's blind bid, which binds the partner too.
          const blindBids = state.turn?.bids ?? [0];
          buttons.unshift(...blindBids.map((bid) => h('button', {
            type: 'button',
            class: bid === 0 ? 'primary' : '',
            'data-testid': bid === 0 ? 'bid-blind-nil' : `bid-blind-${bid}`,
            'aria-label': bid === 0 ? 'Bid blind nil' : `Bid blind ${bid} for your team`,
            onclick: () => act({ type: 'bid', bid, blind: true }, client.bid(bid, true)),
          }, bid === 0 ? 'Bid blind nil' : `Blind ${bid}`)));
        }
        parts.push(h('div', { class: 'button-row' }, buttons));
      }
      if (expected === 'bid') parts.push(bidPanel());
      if (expected === 'pass') parts.push(passPanel());
      if (state.myPassChosen && state.passChosen.includes(state.seat)) {
        parts.push(h('p', { class: 'exchange', 'data-testid': 'exchange-summary' },
          `You chose ${state.myPassChosen.map(shortName).join(' ')}. They go to your partner once he has chosen too.`));
      }
      const { gave, got } = state.exchange;
      if (gave.length || got.length) {
        parts.push(h('p', { class: 'exchange', 'data-testid': 'exchange-summary' },
          gave.length ? `You gave ${gave.map(shortName).join(' ')} to ${state.nameOf(partnerOf(state.seat, state.rules))}. ` : '',
          got.length ? `You got ${got.map(shortName).join(' ')}.` : ''));
      }
    }
    if (state.playing && state.tricks.length) {
      parts.push(h('button', {
        type: 'button', class: 'link', 'data-testid': 'last-trick-toggle', 'aria-expanded': String(view.showLastTrick),
        onclick: () => { view.showLastTrick = !view.showLastTrick; app.refresh(); },
      }, view.showLastTrick ? 'Hide the last trick' : 'Show the last trick'));
    }
    return parts;
  }

  // The score popup and the controls go in the middle of the felt on a
  // wide screen, and under it, next to the hand, on a phone.
  function placeControls() {
    const home = wide.matches ? center : belowFelt;
    if (popup.parentElement !== home) home.append(popup);
    if (actions.parentElement !== home) home.append(actions);
  }

  function bidPanel() {
    const partnerSeat = partnerOf(state.seat, state.rules);
    const partner = partnerSeat === null ? null : state.bids[partnerSeat];
    return h('div', { class: 'bid-panel', role: 'group', 'aria-labelledby': 'bid-title' },
      h('h2', { id: 'bid-title', tabindex: '-1', 'data-primary': '' }, 'Your bid'),
      partner ? h('p', { class: 'hint' }, `Your partner: ${bidText(partner)}.`) : null,
      h('div', { class: 'bid-buttons' },
        // Only the bids the table's rules allow now (all of them unless a
        // house rule such as board, suicide or whiz narrows the choice).
        (state.turn?.bids ?? Array.from({ length: 14 }, (_, bid) => bid)).map((bid) => h('button', {
          type: 'button',
          class: bid === 0 ? 'nil' : '',
          'data-testid': `bid-${bid}`,
          'aria-label': bid === 0 ? 'Bid nil' : `Bid ${bid}`,
          onclick: () => act({ type: 'bid', bid, blind: false }, client.bid(bid)),
        }, bid === 0 ? 'Nil' : String(bid)))));
  }

  function passPanel() {
    const count = state.passCount;
    return h('div', { class: 'pass-panel' },
      h('p', {},
        `Choose ${count} cards to give to ${state.nameOf(partnerOf(state.seat, state.rules))}, then confirm. Chosen: ${view.selected.size} of ${count}.`),
      h('button', {
        type: 'button', class: 'primary', 'data-testid': 'pass-confirm', disabled: view.selected.size !== count,
        onclick: passSelected,
      }, `Give ${count} cards`));
  }

  function gameOverPanel() {
    const won = state.winner;
    let headline = 'The game was abandoned.';
    if (won !== null) {
      headline = state.seat !== null
        ? (teamOf(state.seat, state.rules) === won ? 'You won!' : `${teamName(state, won)} won.`)
        : `${teamName(state, won)} won.`;
    }
    return h('div', { class: 'game-over', 'data-testid': 'game-over', role: 'alert' },
      h('h2', { 'data-testid': 'game-winner', 'data-winner': won ?? '' }, headline),
      h('p', {}, `Final score: ${teamsOf(state.rules).map((team) => `${teamName(state, team)} ${state.score[team]}`).join(', ')}.`),
      h('div', { class: 'button-row' },
        state.seat !== null ? h('button', {
          type: 'button', class: 'primary', 'data-testid': 'new-game', 'data-primary': '',
          onclick: () => send(client.startGame()),
        }, 'New game') : null,
        state.gameId ? h('a', { class: 'button', href: hashFor('replay', state.gameId), 'data-testid': 'replay-link' }, 'Replay this game') : null,
        h('a', { class: 'button', href: hashFor('lobby') }, 'Lobby')));
  }

  function drawHand() {
    if (state.seat === null || state.phase === 'waiting' || state.phase === 'game over') {
      redraw(hand, 'none', () => []);
      hand.hidden = true;
      return;
    }
    hand.hidden = false;
    if (state.hidden) {
      const count = state.handSizes[state.seat] || handSizeOf(state.rules);
      redraw(hand, `hidden ${count}`, () => hiddenHand(count));
      hand.setAttribute('aria-label', 'Your hand (hidden)');
      return;
    }
    hand.setAttribute('aria-label', state.passCount ? `Your hand: choose ${state.passCount} cards` : 'Your hand');
    for (const card of [...view.selected]) if (!state.cards.includes(card) || !state.passCount) view.selected.delete(card);
    const legal = state.legalCards;
    const choosing = state.passCount > 0;
    // Cards look unplayable only when a choice is being made; the rest of
    // the time the hand is simply shown.
    hand.classList.toggle('acting', choosing || state.expected === 'play');
    // A three-player hand of 17 or 18 cards overlaps more to fit the screen.
    hand.classList.toggle('many', state.cards.length > 13);
    const received = state.exchange.got;
    const cards = state.sortedHand;
    // The buttons are made again only when the hand gains a card or is
    // dealt anew. A card played or given away only leaves, and a turn
    // that begins or ends only changes how the buttons look: the page
    // then draws less, and the focused card keeps its focus.
    const cardsKey = `cards ${cards.join()}`;
    const shown = [...hand.querySelectorAll('button[data-card]')];
    const staying = shown.filter((button) => cards.includes(button.dataset.card));
    const onlyButtons = hand.childElementCount === shown.length;
    if (onlyButtons && staying.length === cards.length && staying.every((button, at) => button.dataset.card === cards[at])) {
      for (const button of shown) if (!cards.includes(button.dataset.card)) button.remove();
      drawnAs(hand, cardsKey);
    }
    redraw(hand, cardsKey, () => cards.map((card) => cardButton(card, { onclick: () => play(card) })));
    const buttons = [...hand.querySelectorAll('button[data-card]')];
    for (const button of buttons) {
      const card = button.dataset.card;
      setCardButton(button, {
        enabled: choosing || legal.includes(card),
        pressed: choosing ? view.selected.has(card) : undefined,
        extra: [received.includes(card) && 'received', view.selected.has(card) && 'selected'].filter(Boolean).join(' '),
      });
    }
    // One tab stop: the card last focused, else the first playable one.
    const stop = buttons.find((b) => b.dataset.card === view.handFocus)
      ?? buttons.find((b) => b.dataset.legal === 'true') ?? buttons[0];
    for (const button of buttons) {
      const tabIndex = button === stop ? 0 : -1;
      if (button.tabIndex !== tabIndex) button.tabIndex = tabIndex;
    }
  }

  function drawSide() {
    const names = namesKey(state);
    const last = state.lastHandScore?.hand ?? null;
    redraw(scores, JSON.stringify([state.score, state.bags, last, state.rules, state.seat, names]),
      () => [h('h2', {}, 'Score'), scoreTable(state)]);
    lastTrick.hidden = !view.showLastTrick;
    if (view.showLastTrick) {
      redraw(lastTrick, JSON.stringify([state.lastTrick, state.tricks.length, state.seat, names]),
        () => [h('h2', {}, 'Last trick'), lastTrickPanel(state)]);
    }
    handScores.hidden = !state.handScores.length;
    redraw(handScores, JSON.stringify([state.gameId, state.handScores.length, last, names]),
      () => [h('h2', {}, 'Hands'), [...state.handScores].reverse().map((entry) => handScoreTable(state, entry))]);
    // New lines are appended, so that the live region reads only them.
    const shown = chatLog.childElementCount;
    const first = state.chat[0];
    if (shown > state.chat.length || (shown && chatLog.firstElementChild.dataset.seq !== String(first?.seq))) fill(chatLog);
    const fresh = state.chat.slice(chatLog.childElementCount);
    // Reading the scroll position makes the browser lay the page out at
    // once, so it is read only when there is a line to add.
    if (!fresh.length) return;
    const atBottom = chatLog.scrollHeight - chatLog.scrollTop - chatLog.clientHeight < 40;
    for (const line of fresh) {
      chatLog.append(h('li', { 'data-testid': 'chat-line', 'data-seq': line.seq },
        h('strong', {}, line.from.name), line.seat === null ? ' (watching)' : '', ': ', line.text));
    }
    if (atBottom) chatLog.scrollTop = chatLog.scrollHeight;
  }

  function drawPopup() {
    if (state.handScores.length > view.seenScores) {
      view.popup = state.lastHandScore;
      view.popupUntil = Date.now() + SCORE_POPUP_MS;
      view.timers.push(setTimeout(() => app.refresh(), SCORE_POPUP_MS + 20));
    }
    view.seenScores = state.handScores.length;
    if (!view.popup || Date.now() >= view.popupUntil) {
      redraw(popup, '', () => []);
      return;
    }
    redraw(popup, JSON.stringify([view.popupUntil, namesKey(state)]), () => h('div', { class: 'score-popup', 'data-testid': 'hand-score-popup', role: 'status' },
      handScoreSummary(state, view.popup),
      h('button', { type: 'button', class: 'link', 'data-testid': 'hand-score-close', onclick: () => { view.popup = null; app.refresh(); } }, 'Close')));
  }

  function announce() {
    const fresh = state.log.filter((entry) => entry.seq > view.announced);
    if (fresh.length) {
      view.announced = fresh[fresh.length - 1].seq;
      app.announce(fresh.slice(-3).map((entry) => describeEntry(state, entry)).join(' '));
    }
    if (state.myTurn && !view.wasMyTurn) app.announce(`Your turn: ${expectedText(state.turn.expected, state.turn.passCount)}.`);
  }

  function tick() {
    const left = state.clockLeft;
    const text = left === null ? '' : formatClock(left);
    for (const clock of screen.querySelectorAll('[data-clock]')) {
      // The same text set again would still cost the page a new frame.
      if (clock.textContent !== text) clock.textContent = text;
      clock.classList.toggle('low', left !== null && left <= 10000);
    }
  }

  function draw() {
    const inRoom = state.room === code;
    placeholder.hidden = inRoom;
    screen.hidden = !inRoom;
    if (!inRoom) {
      join();
      fill(placeholder, view.joinError
        ? h('div', { class: 'card-panel', role: 'alert', 'data-testid': 'join-error' },
          h('p', {}, describe(view.joinError)),
          h('a', { class: 'button', href: hashFor('lobby') }, 'Back to the lobby'))
        : h('p', { class: 'loading' }, `Joining table ${code}…`));
      return;
    }
    const active = document.activeElement;
    const hadFocus = active && screen.contains(active) && active !== document.body;
    const key = hadFocus ? focusKey(active) : null;
    drawBar();
    state.seats.forEach((_, seat) => redraw(seats[seat], seatKey(state, seat), () => seatPanel(state, seat, seatActions)));
    drawTrick();
    drawIndicator();
    drawActions();
    drawHand();
    drawSide();
    drawPopup();
    placeControls();
    announce();
    tick();
    restoreFocus(key, hadFocus && !screen.contains(active));
    view.wasMyTurn = state.myTurn;
  }

  // Drawing again must not lose the keyboard user's place: focus goes
  // back to the same control, or, when that control is gone (the card
  // was played, the bid was made), to the control that now matters. When
  // a new turn begins, focus moves to it, unless the player is typing.
  function restoreFocus(key, lostFocus) {
    const current = document.activeElement;
    if (current && screen.contains(current) && current.matches('input, textarea, select')) return;
    const newTurn = state.myTurn && !view.wasMyTurn;
    const idle = !current || current === document.body || lostFocus;
    if (newTurn && (idle || (current && screen.contains(current)))) {
      focusPrimary();
      return;
    }
    const same = findByKey(screen, key);
    if (same) {
      if (document.activeElement !== same) same.focus({ preventScroll: true });
    } else if (lostFocus) {
      focusPrimary();
    }
  }

  function focusPrimary() {
    const target = actions.querySelector('[data-primary]')
      ?? hand.querySelector('button[tabindex="0"]')
      ?? actions.querySelector('button:not([disabled])');
    target?.focus();
  }

  const clockTimer = setInterval(tick, 250);
  wide.addEventListener?.('change', () => app.refresh());
  draw();

  return {
    update: draw,
    unmount() {
      clearInterval(clockTimer);
      view.timers.forEach(clearTimeout);
    },
  };
}
