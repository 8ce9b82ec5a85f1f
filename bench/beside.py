"""What the scripts that put a human beside writing agents share: a daemon child on a fresh
example root, and connections to its socket. Imported by the `*-beside.py` scripts here."""
import os, socket, subprocess, tempfile, time

USERS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "users")
HUMAN_ENV = dict(os.environ, GIT_AUTHOR_NAME="Hu Man", GIT_AUTHOR_EMAIL="h@example.org",
                 GIT_COMMITTER_NAME="Hu Man", GIT_COMMITTER_EMAIL="h@example.org", GIT_EDITOR="true")


class Daemon:
    """`memoryd init --example` in a new temporary directory, then `serve` as a child process
    (its log in `daemon.log` beside the root); the directory is kept for a look afterwards."""

    def __init__(self, jar, prefix):
        self.jar = jar
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.root, self.key = os.path.join(self.tmp, "memory"), os.path.join(self.tmp, "key")
        subprocess.run(["java", "-jar", jar, "init", "--root", self.root, "--example", USERS, "--key-file", self.key],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.log = open(os.path.join(self.tmp, "daemon.log"), "w")
        self.proc = subprocess.Popen(["java", "-jar", jar, "serve", "--root", self.root, "--key-file", self.key],
                                     stdout=self.log, stderr=self.log)
        self.sock = os.path.join(self.root, ".memoryd", "memoryd.sock")

    def connect(self):
        """A connection to the socket, waiting up to 30 s for the daemon to come up."""
        for _ in range(300):
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(self.sock)
                return s
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the daemon did not come up")

    def cli(self, *args):
        """`memoryd ARGS --root ROOT --key-file KEY`, its output captured."""
        return subprocess.run(["java", "-jar", self.jar] + list(args) + ["--root", self.root, "--key-file", self.key],
                              capture_output=True, text=True)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
