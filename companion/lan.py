"""This machine's addresses on the home network, read from its interfaces, and the QR code
that takes a tablet to the page.

No traffic is sent to find them: on Linux each interface's IPv4 address is
asked of the kernel (``SIOCGIFADDR``); elsewhere the addresses the host name
resolves to are used.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import sys
from collections.abc import Iterable

SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
# Interfaces of containers, VPNs and virtual machines: a tablet on the Wi-Fi cannot reach them.
VIRTUAL = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "tun", "tap", "wg", "zt",
           "tailscale", "lxc", "cni", "flannel", "ifb")


def interface_addresses() -> list[tuple[str, str]]:
    """(interface, IPv4 address) for every interface that has one."""
    if sys.platform.startswith("linux"):
        import fcntl

        found = []
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _index, name in socket.if_nameindex():
                try:
                    packed = fcntl.ioctl(s.fileno(), SIOCGIFADDR,
                                         struct.pack("256s", name[:15].encode()))
                except OSError:  # no IPv4 address on this interface
                    continue
                found.append((name, socket.inet_ntoa(packed[20:24])))
        return found
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return []
    return [("", info[4][0]) for info in infos]


def lan_addresses(found: Iterable[tuple[str, str]] | None = None) -> list[str]:
    """Addresses other devices at home may reach this one by, the likeliest first."""
    ranked = []
    for name, address in interface_addresses() if found is None else found:
        ip = ipaddress.ip_address(address)
        if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast:
            continue
        virtual = name.startswith(VIRTUAL)
        ranked.append((virtual, not ip.is_private, address))
    return [address for *_rank, address in sorted(dict.fromkeys(ranked))]


def page_urls(host: str, port: int) -> list[str]:
    """The page's addresses for other devices when it listens on ``host`` (none for loopback)."""
    if host in ("0.0.0.0", "::", ""):
        return [f"http://{a}:{port}/" for a in lan_addresses()]
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return [f"http://{host}:{port}/"]  # a host name the user chose
    if ip.is_loopback:
        return []
    return [f"http://[{host}]:{port}/" if ip.version == 6 else f"http://{host}:{port}/"]


def terminal_qr(url: str) -> str:
    """The QR code of ``url`` drawn with block characters, for the terminal."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue().rstrip("\n")
