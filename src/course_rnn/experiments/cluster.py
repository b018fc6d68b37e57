"""A Dask cluster as the executor of ``replicate --executor dask://HOST:PORT``.

An experiment's training jobs are independent and seed themselves, so any pool of workers can
run them (:func:`~.workers.parallel_map`); Dask's ``distributed`` is the engine for a lab
cluster (on SLURM or PBS through ``dask-jobqueue``: README.md has a worked example). It is an
optional extra, ``pip install "course_rnn[cluster]"``, imported only when asked for.

Everything here runs before any work and imports neither torch nor Dask until needed: a bad
address is refused at once, an unreachable scheduler within :data:`PROBE_SECONDS` (a plain TCP
connection tried first, so a closed port or an unknown host is refused before Dask is even
imported), and a port where something listens but no scheduler answers within
:data:`CONNECT_SECONDS`, each with a message that names the address.
"""

from __future__ import annotations

import importlib.util
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from ..context import parse_executor as parse_executor  # re-exported

#: How to install what ``--executor dask://…`` needs.
INSTALL = 'pip install "course_rnn[cluster]"'
#: How long the first TCP connection to the scheduler may take.
PROBE_SECONDS = 2.0
#: How long Dask's handshake may then take (something listens there: is it a scheduler?).
CONNECT_SECONDS = 2.5
#: How many times Dask runs a job again after it raised (a job lost with its worker is
#: rescheduled by the scheduler itself, up to its ``allowed-failures``).
RETRIES = 2


def check_installed() -> None:
    """ValueError saying how to install Dask when ``distributed`` cannot be imported."""
    try:
        found = importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules: not importable
        found = False
    if not found:
        raise ValueError(f"--executor dask://… needs Dask's 'distributed' package, which is "
                         f"not installed: {INSTALL}")


def probe(address: str, seconds: float = PROBE_SECONDS) -> None:
    """ValueError naming ``address`` when no TCP connection to it opens within ``seconds``."""
    parts = urlsplit(address)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=seconds):
            pass
    except OSError as err:
        reason = "no answer" if isinstance(err, TimeoutError) else (err.strerror or str(err))
        raise ValueError(f"the Dask scheduler at {address} cannot be reached ({reason} within "
                         f"{seconds:g} s): is it running, and is the address right?") from None


def _client(address: str):
    """Dask's ``Client`` of the scheduler at ``address``; ValueError naming it when none
    answers within :data:`CONNECT_SECONDS`. Dask's own timeout covers opening the connection,
    not its handshake, which waits for ever on a peer that accepts and never speaks (a service
    that is not Dask's): the client is made in a daemon thread, which that wait cannot hold."""
    from distributed import Client

    made: dict = {}

    def connect() -> None:
        try:
            made["client"] = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
        except Exception as err:  # any failure to connect is reported below, by address
            made["error"] = err

    thread = threading.Thread(target=connect, name="dask-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_SECONDS)
    if "client" in made:
        return made["client"]
    why = made.get("error") or f"no Dask scheduler answered within {CONNECT_SECONDS:g} s"
    raise ValueError(f"cannot connect to the Dask scheduler at {address}: {why}")


@contextmanager
def dask_executor(address: str, retries: int = RETRIES) -> Iterator:
    """A ``concurrent.futures`` executor on the Dask scheduler at ``address`` (closed on exit):
    each job is its own task (``pure=False``: never merged with an equal one) that Dask runs
    again up to ``retries`` times. ValueError before any work when Dask is missing or the
    scheduler does not answer."""
    check_installed()
    probe(address)
    client = _client(address)
    try:
        yield client.get_executor(pure=False, retries=retries)
    finally:
        client.close()
