"""The system test's « phone » on the box's own Wi-Fi: run in the guest, in the phone's network namespace.

``python3 wifi_phone.py SOCKET HOST PORT`` listens on the Unix socket SOCKET (a path: the host reaches
it through SSH's forwarding, ``ssh -L PORT:SOCKET``) and carries each connection to HOST:PORT from the
namespace it runs in, where the only way out is the simulated Wi-Fi radio that joined the box's access
point. So the host's checks (systemtest/run.py, ``Phone``) load pages, pair and press as a phone on that
network would: every byte crosses the radio. Standard library only: the card's own python3 runs it.
"""

from __future__ import annotations

import asyncio
import os
import sys


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def main(path: str, host: str, port: int) -> None:
    async def carry(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            far_reader, far_writer = await asyncio.open_connection(host, port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, far_writer), pipe(far_reader, writer))

    server = await asyncio.start_unix_server(carry, path)
    os.chmod(path, 0o666)  # the maker's SSH session forwards to it
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
