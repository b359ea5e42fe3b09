# The actions a group of key presses gives (gestures.py makes them, game.py
# and the menus act on them, the session logs a recognised gesture by its
# name): their codes and their names, in one place, with no import, so a
# module that only names an action needs neither gestures.py nor the
# button driver under it.
NONE = 0
LEFT = 1          # left player's button pressed (t = edge)
RIGHT = 2         # right player's button pressed (t = edge)
PAUSE_DOWN = 3    # pause key pressed (t = edge)
PAUSE_LONG = 4    # pause key held long_ms alone (t = recognised)
REFEREE = 5       # pause + both player buttons held referee_ms (t = recognised)
CONFIRM = 6       # both player buttons held confirm_ms, pause up (t = that instant)
LATE_L = 7        # pause + left button held long_ms: left is present
LATE_R = 8        # pause + right button held long_ms: right is present
ALL_UP = 9        # the group closed: every key is up (t = the last release)
REGROUP = 10      # the group began later than thought: at `key`'s press, t0
UP = 11           # a key let go, another still down (t = its release edge)
ACTION_NAMES = ("none", "left", "right", "pause_down", "pause_long", "referee",
                "confirm", "late_l", "late_r", "all_up", "regroup", "up")
GESTURES = (PAUSE_LONG, REFEREE, CONFIRM, LATE_L, LATE_R)
