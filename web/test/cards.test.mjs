// Card names, orders and trick winners.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cardName, fullPackForThree, isCard, rankLabel, shortName, sortForDisplay, sortForProtocol, suitOf, trickWinner } from '../js/cards.js';

test('cards have spoken names and printed ranks', () => {
  assert.equal(cardName('QH'), 'queen of hearts');
  assert.equal(cardName('TS'), 'ten of spades');
  assert.equal(cardName('2C'), 'two of clubs');
  assert.equal(rankLabel('TD'), '10');
  assert.equal(shortName('AS'), 'A\u2660');
  assert.ok(isCard('9D') && !isCard('1D') && !isCard('9X') && !isCard('9DD'));
});

test('a hand is shown by suit with colours alternating, high to low', () => {
  assert.deepEqual(sortForDisplay(['2D', 'AS', '3C', 'KH', 'TS', 'AC']), ['AS', 'TS', 'KH', 'AC', '3C', '2D']);
});

test('sets go to the server in the protocol order', () => {
  assert.deepEqual(sortForProtocol(['2C', 'JH', 'AS', '3D']), ['AS', 'JH', '3D', '2C']);
});

test('the highest spade wins, else the highest card of the suit led', () => {
  assert.equal(trickWinner(3, ['2D', '3D', '4D', '5D']), 2);
  assert.equal(trickWinner(0, ['KH', '2S', 'AH', '3S']), 3);
  assert.equal(trickWinner(1, ['QC', 'AD', 'KC', '2H']), 3);
});

test('the jokers are spades with names of their own, above the raised two and the ace', () => {
  assert.equal(cardName('BJ'), 'big joker');
  assert.equal(cardName('LJ'), 'little joker');
  assert.ok(isCard('BJ') && isCard('LJ') && !isCard('CJ'));
  assert.equal(shortName('LJ'), 'little joker');
  assert.deepEqual(sortForDisplay(['AS', '2S', 'LJ', 'KH', 'BJ'], 'jokers'), ['BJ', 'LJ', '2S', 'AS', 'KH']);
  // In the standard pack the two of spades stays the lowest spade.
  assert.deepEqual(sortForDisplay(['AS', '2S', '3S']), ['AS', '3S', '2S']);
  assert.equal(trickWinner(0, ['3S', 'LJ', '2S', 'AS'], 'jokers'), 1);
  assert.equal(trickWinner(0, ['3S', 'LJ', 'BJ', 'AS'], 'jokers'), 2);
  assert.equal(trickWinner(2, ['AS', 'KS', '2S', '3H'], 'deuce_high'), 0);
  assert.equal(trickWinner(2, ['AS', 'KS', '2S', '3H']), 2);
  // A joker played to a heart lead trumps it.
  assert.equal(trickWinner(1, ['AH', 'KH', 'LJ', 'QH'], 'jokers'), 3);
});

test('in New York City\'s pack the two of diamonds is a trump under the two of spades, named as printed', () => {
  const deck = 'new_york_city';
  assert.equal(cardName('2D'), 'two of diamonds');
  assert.equal(shortName('2D'), '2\u2666');
  assert.equal(suitOf('2D', deck), 'S');
  assert.equal(suitOf('2D'), 'D');
  assert.equal(suitOf('2D', 'new_york'), 'D');
  // Shown among the spades, under the raised two of spades.
  assert.deepEqual(sortForDisplay(['AD', '2D', 'AS', '2S', 'LJ', 'KH', 'BJ'], deck), ['BJ', 'LJ', '2S', '2D', 'AS', 'KH', 'AD']);
  assert.deepEqual(sortForProtocol(['3D', '2D', 'AS', 'KH'], deck), ['2D', 'AS', 'KH', '3D']);
  // It beats the ace of spades and loses to the two of spades.
  assert.equal(trickWinner(0, ['AS', '2D', 'KS', '3S'], deck), 1);
  assert.equal(trickWinner(0, ['2D', '2S', 'AS', '3S'], deck), 1);
  assert.equal(trickWinner(0, ['2D', 'LJ', '2S', 'AS'], deck), 1);
  // To a diamond lead it is a trump, not a diamond.
  assert.equal(trickWinner(2, ['KD', 'AD', '2D', '3D'], deck), 0);
  assert.equal(trickWinner(2, ['KD', 'AD', '2D', '3D']), 3);
  assert.equal(fullPackForThree(deck), true);
  assert.equal(fullPackForThree('new_york'), false);
});
