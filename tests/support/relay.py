"""A TCP relay to the real PostgreSQL server, for tests that take the database away and bring it back."""

from __future__ import annotations

import contextlib
import socket
import threading


class Relay:
    """A TCP relay to the real PostgreSQL server, to take the server away and bring it back. Before `start`
    nothing listens on its port (connections are refused); `stop` drops every open connection and closes new
    ones at once, as a server going down does."""

    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))  # bound, not listening: connecting is refused
        self.port = self.listener.getsockname()[1]
        self.up = False
        self.listening = False
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()

    def start(self) -> None:
        self.up = True
        if not self.listening:
            self.listener.listen(16)
            self.listening = True
            threading.Thread(target=self._accept, daemon=True).start()

    def stop(self) -> None:
        self.up = False
        with self.lock:
            for sock in self.sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self.sockets.clear()

    def close(self) -> None:
        self.stop()
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            server = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, server]
            for src, dst in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
