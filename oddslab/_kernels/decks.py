"""Card decks drawn without replacement (shared numba primitive).

A deck is an int64 array ``cards[:k]`` of card values plus a count ``drawn`` of the cards
already drawn, which sit in ``cards[:drawn]``. :func:`draw_card` is a partial Fisher-Yates
draw from the not-yet-drawn part, so each draw is uniform over the cards left whatever order
earlier draws (or earlier trials reusing the array) left them in. Resetting ``drawn`` to 0
reshuffles the whole deck; no copy or full shuffle is needed per trial.
"""

from __future__ import annotations

from oddslab._jit import jit
from oddslab._kernels.rng import randint

__all__ = ["draw_card"]


@jit(inline="always")
def draw_card(st, cards, k, drawn):
    """Draw one card from ``cards[:k]`` of which ``cards[:drawn]`` are already drawn.

    Parameters
    ----------
    st : uint64[6]
        RNG state (:func:`oddslab._kernels.rng.new_state`).
    cards : int64[>= k]
        The deck; permuted in place (the drawn card moves to ``cards[drawn]``).
    k : int
        Cards in the deck.
    drawn : int
        Cards drawn so far; when it reaches ``k`` the deck runs out and every card is
        shuffled back (drawing restarts from a full deck).

    Returns
    -------
    (int64, int64)
        The card's value and the new ``drawn`` count.
    """
    if drawn >= k:
        drawn = 0
    j = drawn + randint(st, k - drawn)
    card = cards[j]
    cards[j] = cards[drawn]
    cards[drawn] = card
    return card, drawn + 1
