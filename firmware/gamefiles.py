# The game log's folder (gamelog.py's base; issue 28 split it from the game
# being written): games/gNNNN.txt, within max_games files and max_bytes
# (oldest games deleted first), the numbers of the games, a file cut back
# to a length after a power cut, and the files read back (the results menu,
# the hall link, the REPL).
#
#   GameFiles.__init__(self, fs, folder, max_games, max_bytes)
#   list_games() / open_game(n) / read(name)   the files read back
#   remove(name)            a closed game file removed
#   game_number(name)       gNNNN.txt -> NNNN (0: not a game file)
import fsys

_COPY = 512  # bytes per chunk when a file is cut back (gamelog.reopen())


def _copy(src, dst, n):
    """The first n bytes of src into dst, in chunks."""
    while n > 0:
        chunk = src.read(_COPY if n > _COPY else n)
        if not chunk:
            break
        dst.write(chunk)
        n -= len(chunk)


def game_number(name):
    """gNNNN.txt -> NNNN; 0 for any other name."""
    if len(name) < 6 or name[0] != "g" or name[-4:] != ".txt":
        return 0
    d = name[1:-4]
    for c in d:
        if c < "0" or c > "9":
            return 0
    return int(d)


class GameFiles:
    def __init__(self, fs, folder, max_games, max_bytes):
        self.fs = fs
        self.folder = folder
        self.max_games = max_games if max_games > 1 else 1
        self.max_bytes = max_bytes
        self._old = []         # [number, size] of the other games, oldest first
        self._old_bytes = 0

    # -- files ------------------------------------------------------------------
    def _path(self, number):
        return "%s/g%04d.txt" % (self.folder, number)

    def _size(self, path):
        try:
            return self.fs.stat(path)[6]
        except OSError:
            return -1

    def _scan(self):
        """The games on flash, oldest first (creates the folder if missing;
        removes a temp file a power cut left behind)."""
        fs = self.fs
        try:
            names = fs.listdir(self.folder)
        except OSError:
            try:
                fs.mkdir(self.folder)
            except OSError:
                pass
            names = []
        games = []
        for name in names:
            n = game_number(name)
            if n:
                games.append([n, self._size(self.folder + "/" + name)])
            elif name.endswith(".tmp"):
                try:
                    fs.remove(self.folder + "/" + name)
                except OSError:
                    pass
        games.sort()
        return games

    def _drop_oldest(self):
        n, size = self._old.pop(0)
        try:
            self.fs.remove(self._path(n))
        except OSError:
            pass
        self._old_bytes -= size if size > 0 else 0

    def _set_old(self, games, current):
        self._old = [g for g in games if g[0] != current]
        self._old_bytes = 0
        for g in self._old:
            if g[1] > 0:
                self._old_bytes += g[1]

    def _prune(self, reserve):
        while self._old and (len(self._old) > self.max_games - 1 or
                             self._old_bytes + reserve > self.max_bytes):
            self._drop_oldest()

    def _next(self, games):
        """The number begin() gives the next game.  A newest file without a
        single event (a game that never started, e.g. power failed before
        the first checkpoint) is reused (and taken off `games`)."""
        if games and 0 <= games[-1][1] < 256 and not self._has_events(games[-1][0]):
            return games.pop()[0]
        return games[-1][0] + 1 if games else 1

    def _has_events(self, n):
        try:
            f = self.fs.open(self._path(n), "rb")
            try:
                data = f.read(256)
            finally:
                f.close()
        except OSError:
            return True  # unreadable: leave it alone
        for line in data.split(b"\n"):
            if line[:1] in (b"0", b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9"):
                return True
        return False

    def remove(self, name):
        """Remove the game file `name` (closed): one begun for a game that a
        gesture has just undone back to before its first event (begin()
        gives its number again)."""
        if name is not None:
            try:
                self.fs.remove(name)
            except OSError:
                pass

    # -- a file cut back after a power cut ----------------------------------------
    def _line_end(self, path, pos):
        """True if a line ends at byte pos (a position this log wrote)."""
        f = self.fs.open(path, "rb")
        try:
            f.seek(pos - 1)
            return f.read(1) == b"\n"
        finally:
            f.close()

    def _whole_lines(self, path, size):
        """The length of the file up to its last newline."""
        if size <= 0:
            return 0
        f = self.fs.open(path, "rb")
        try:
            start = size - _COPY if size > _COPY else 0
            f.seek(start)
            tail = f.read(_COPY)
        finally:
            f.close()
        if tail[-1:] == b"\n":
            return size
        i = tail.rfind(b"\n")
        return start + i + 1 if i >= 0 else start

    def _truncate(self, path, keep):
        """Cut a file to `keep` bytes: a copy replaces it atomically (a
        power cut on the way leaves the original)."""
        src = self.fs.open(path, "rb")
        try:
            fsys.write_atomic(self.fs, path, lambda dst: _copy(src, dst, keep))
        finally:
            src.close()

    # -- reading back (the results menu, the hall, the REPL) -----------------------
    def list_games(self):
        """The game files, oldest first: ["g0007.txt", ...]."""
        try:
            names = self.fs.listdir(self.folder)
        except OSError:
            return []
        games = [(game_number(n), n) for n in names if game_number(n)]
        games.sort()
        return [g[1] for g in games]

    def open_game(self, n):
        """Game n's file open for reading ("rb") and its size: the hall
        link (net.py) streams it, never reading it whole.  OSError if
        there is none."""
        path = self._path(n)
        size = self._size(path)
        if size < 0:
            raise OSError(2)
        return self.fs.open(path, "rb"), size

    def read(self, name):
        """The text of one game file ("g0007.txt" or a number)."""
        if not isinstance(name, str):
            name = "g%04d.txt" % name
        f = self.fs.open(self.folder + "/" + name, "rb")
        try:
            return f.read().decode()
        finally:
            f.close()
