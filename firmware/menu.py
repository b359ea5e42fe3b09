# The menus: setup, referee and the results of the last games, three of the
# app's screens (app.py): small state machines on the clock's three keys,
# drawn into the app's LCD rows.  This is the app's door to them; each menu
# is a file of its own (setupmenu.py, refereemenu.py, resultsmenu.py) built
# from the toolkit in menukit.py (the action codes, the codes handle()
# returns, the drawing helpers).
#
# The app turns keys into action codes (action()) and calls handle(), each
# key at its own leading edge (SPEC v3 §4 Gestures):
#   A_LEFT    (left player button)  decrease / previous value
#   A_RIGHT   (right player button) increase / next value / ask
#   A_NEXT    (pause key)           next item (wraps round); drops a question
#   A_DONE    (pause key held 2 s)  leave the menu
#   A_CONFIRM (both player buttons held 1 s, pause up)  yes to the question
# A gesture undoes what its keys did at their edges: the app calls mark()
# when the first of them goes down and undo() when it is recognised,
# and calls render(rows) with its row bytearrays (16x2 or 20x4; one
# bytearray(cols) per row) whenever it redraws.  render() allocates nothing.
#
# Layout, 16x2:                      20x4:
#   row 0  item label                  row 0  title           n/N
#   row 1  "<    value     >"          row 1  item label
#                                      row 2  "<      value       >"
#                                      row 3  hint (setup) / both times (referee)
# An arrow is drawn only where that button changes something.
#
# Words come from lang.py in the chosen language; every label fits 16 columns
# and every value 12 (tests/test_lang.py), so nothing is ever cut.
import gestures as gst
from menukit import A_LEFT, A_RIGHT, A_NEXT, A_DONE, A_CONFIRM, \
    SAVE, RESULTS, EXIT, RESET  # noqa: F401 - the app's codes
from setupmenu import SetupMenu  # noqa: F401
from refereemenu import RefereeMenu  # noqa: F401
from resultsmenu import ResultsMenu  # noqa: F401


def action(a):
    """A key's or a gesture's action (gestures.py) as the menus' (0: none
    for the menus).  The gestures' keys are undone first (undo())."""
    if a == gst.LEFT:
        return A_LEFT
    if a == gst.RIGHT:
        return A_RIGHT
    if a == gst.PAUSE_DOWN:
        return A_NEXT
    if a == gst.PAUSE_LONG:
        return A_DONE
    if a == gst.CONFIRM:
        return A_CONFIRM
    return 0
