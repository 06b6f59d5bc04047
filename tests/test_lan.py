"""The page's addresses for other devices: read from this machine's interfaces, ranked."""

from __future__ import annotations

import socket

import segno

from companion.lan import interface_addresses, lan_addresses, page_urls, terminal_qr


def test_addresses_skip_loopback_and_link_local_and_rank_virtual_interfaces_last() -> None:
    found = [("lo", "127.0.0.1"), ("docker0", "172.17.0.1"), ("wlan0", "192.168.1.23"),
             ("eth0", "169.254.3.4"), ("tailscale0", "100.101.102.103"), ("eth1", "10.0.0.5")]
    assert lan_addresses(found) == ["10.0.0.5", "192.168.1.23", "172.17.0.1", "100.101.102.103"]


def test_every_address_found_belongs_to_this_machine() -> None:
    for address in lan_addresses():
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((address, 0))  # only an address of one's own interfaces can be bound
    names = [name for name, _ in interface_addresses()]
    assert len(names) == len(set(names))


def test_page_urls_by_host() -> None:
    assert page_urls("127.0.0.1", 8080) == []
    assert page_urls("192.168.1.9", 80) == ["http://192.168.1.9:80/"]
    assert page_urls("fd00::5", 80) == ["http://[fd00::5]:80/"]
    assert page_urls("0.0.0.0", 8080) == [f"http://{a}:8080/" for a in lan_addresses()]


def test_the_terminal_qr_code_is_the_address() -> None:
    drawn = terminal_qr("http://192.168.1.23:8080/")
    lines = drawn.splitlines()
    width = segno.make("http://192.168.1.23:8080/", error="m").symbol_size(border=2)[0]
    assert all(len(line) == width for line in lines)
    assert set("".join(lines)) <= {"█", "▀", "▄", " "}
