# The hall link's QoS 1 queue (net.py; issue 19 "no result lost"): the
# results, game logs and emptied retained topics waiting for their PUBACK
# (a result: for the hall recorder's confirmation), kept on flash from the
# moment one is queued until then, so a power cut loses none.
#
# Each message is a Message (a record with named fields):
#   pid     its MQTT packet id
#   packet  the PUBLISH (a game log's: mqtt.publish_head(), its payload
#           streamed from the file when it is sent)
#   sent    written on the current link, not yet acknowledged
#   line    its line in the file (below)
#   echo    a result's body (bytes) the recorder confirms by sending it
#           back; None for the others (forgotten at their PUBACK)
#   acked   the broker has this copy (a result waiting for its confirmation)
#   log     a game log's number, else None
# Net reads a message's fields and asks for changes through the methods
# below; only this file writes them.
#
# The file (OUTBOX, next to the app, written by fsys.write_atomic): one line
# per message, "R <topic> <JSON>" (a result), "L <topic> <game>" (a game's
# log, read again from its file), "C <topic>" (an emptied retained topic).
# A file that is not such a list (too long, not text, another line) is
# ignored with one line.
import fsys
import mqtt

MAX_QOS1 = 8            # results and logs waiting for PUBACK / confirmation
OUTBOX = "net.out"      # the file, in the app's folder
OUTBOX_MAX = 8192       # a longer outbox file is not ours


class Message:
    """One queued message, its fields as above (sent and acked start False)."""

    def __init__(self, pid, packet, line, echo, log):
        self.pid = pid
        self.packet = packet
        self.sent = False
        self.line = line
        self.echo = echo
        self.acked = False
        self.log = log


class Outbox:
    def __init__(self, fs, path):
        self.fs = fs
        self.path = path
        self.q = []               # the messages, oldest first (never rebound)
        self.unsent = 0           # messages not yet written on this link
        self.acked = 0            # results acknowledged, not yet confirmed
        self.pid = 0
        self.dropped = 0          # messages lost to a full queue, or whose log is gone
        self.writes = 0           # times the file was written

    # -- queueing -----------------------------------------------------------------
    def add(self, topic, payload, line, retain, echo=None):
        """Queue a QoS 1 message; `line` is its file line; `echo`: a
        result's body, kept until the recorder confirms it."""
        if self._queued(line):
            return
        self._room()
        self.pid = self.pid % 65535 + 1
        self.q.append(Message(self.pid, mqtt.publish_packet(topic, payload, 1, retain, self.pid),
                              line, echo, None))
        self.unsent += 1

    def add_log(self, topic, n, line):
        """Queue game n's log (retained), streamed from its file when it is
        sent (and each time it is sent again)."""
        if self._queued(line):
            return
        self._room()
        self.pid = self.pid % 65535 + 1
        self.q.append(Message(self.pid, mqtt.publish_head(topic, 1, True, self.pid),
                              line, None, n))
        self.unsent += 1

    def _queued(self, line):
        """A message with this line waits unsent (it would go out the same):
        twice queued is once."""
        for m in self.q:
            if not m.sent and m.line == line:
                return True
        return False

    def _room(self):
        """A full queue drops its oldest log or emptied topic first, a
        result only if nothing else is left."""
        q = self.q
        if len(q) >= MAX_QOS1:
            i = 0
            for j in range(len(q)):
                if q[j].echo is None:
                    i = j
                    break
            self._remove(i)
            self.dropped += 1

    def _remove(self, i):
        m = self.q.pop(i)
        if not m.sent:
            self.unsent -= 1
        if m.acked:
            self.acked -= 1

    # -- the link's side (Net calls these) ---------------------------------------------
    def next(self):
        """The oldest message not yet written on this link, or None."""
        for m in self.q:
            if not m.sent:
                return m
        return None

    def sending(self, m):
        """Message m is being written now."""
        m.sent = True
        self.unsent -= 1

    def drop(self, m):
        """Message m cannot be sent (its log file is gone): forgotten."""
        self._remove(self.q.index(m))
        self.dropped += 1

    def puback(self, pid):
        """The broker acknowledged pid: 1 the message is done (forgotten),
        2 a result now waits for its confirmation, 0 not one of ours."""
        q = self.q
        for i in range(len(q)):
            m = q[i]
            if m.pid == pid and m.sent and not m.acked:
                if m.echo is None:
                    self._remove(i)
                    return 1
                m.acked = True
                self.acked += 1
                return 2
        return 0

    def confirm(self, body):
        """The recorder echoed a result's body: True if it was ours (forgotten)."""
        q = self.q
        for k in range(len(q)):
            if q[k].echo is not None and q[k].echo == body:
                self._remove(k)
                return True
        return False

    def waiting(self):
        """A message written on this link waits for its PUBACK."""
        for m in self.q:
            if m.sent and not m.acked:
                return True
        return False

    def resend(self):
        """The results the broker has but the recorder has not confirmed
        (it may be down, or the broker may lose them) go out again."""
        for m in self.q:
            if m.acked:
                m.acked = False
                m.sent = False
                self.unsent += 1
        self.acked = 0

    def relink(self):
        """The link failed: everything goes out again on the next one,
        a message already written with DUP set."""
        for m in self.q:
            if m.sent:
                mqtt.set_dup(m.packet)
                m.sent = False
            m.acked = False
        self.unsent = len(self.q)
        self.acked = 0

    # -- the file --------------------------------------------------------------------
    def save(self):
        """Write the queue's lines (temp file + rename), or remove the file
        when the queue is empty.  None, or why the flash refused (a failing
        flash costs a note, not the game)."""
        fs = self.fs
        try:
            if not self.q:
                try:
                    fs.remove(self.path)
                except OSError:
                    pass
                return None
            fsys.write_atomic(fs, self.path, "".join([m.line + "\n" for m in self.q]).encode())
            self.writes += 1
        except OSError as e:
            return "cannot keep the queue on flash: %s" % e
        return None

    def load(self):
        """The messages a power cut left unacknowledged: queued again."""
        try:
            f = self.fs.open(self.path, "rb")
        except OSError:
            return
        try:
            data = f.read(OUTBOX_MAX + 1)
        finally:
            f.close()
        bad = len(data) > OUTBOX_MAX
        try:
            lines = data.decode().split("\n")
        except UnicodeError:
            lines = ()
            bad = True
        for line in lines:
            if line and not bad:
                bad = not self._requeue(line)
        if bad:
            print("%s: not a queue of this clock's messages; ignored" % OUTBOX)

    def _requeue(self, line):
        p = line.split(" ", 2)
        if len(p) < 2 or not p[1].startswith("scrabble/"):
            return False
        if p[0] == "C" and len(p) == 2:
            self.add(p[1], b"", line, True)
        elif p[0] == "R" and len(p) == 3:
            self.add(p[1], p[2], line, False, p[2].encode())
        elif p[0] == "L" and len(p) == 3:
            try:
                n = int(p[2])
            except ValueError:
                return False
            self.add_log(p[1], n, line)
        else:
            return False
        return True
