#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
cn_frames.py: send a fixed set of 802.1Qau frames on a raw AF_PACKET
socket, built here from the standard's layout (independently of the C
codec), for the decoder tests (cp_wireshark.sh):

  - CNMs (EtherType 0x22E7) whose fields sweep the edges: every priority,
    qFb 0..63, cnmQOffset/cnmQDelta at -32768, -1, 0, 1, 32767, MSDU lengths
    0, 1, 2, 30 and 64 (an IPv4/UDP header), with and without Ethernet
    padding;
  - a CNM of exactly its 24 fixed octets;
  - CNMs the codec must reject, one per error, each at its boundary (23
    octets; MSDU length 65; an MSDU one octet short of its length) and two
    where two errors meet (the first check in the codec's order wins);
  - CN-TAG frames (EtherType 0x22E9): Flow ID 0xbeef + IPv4/UDP, and Flow ID
    0x0001 + EtherType 0x88b5 (local experimental: no dissector).

Usage: cn_frames.py IFACE DST_MAC SRC_MAC
Prints "sent CNM=N CNTAG=N".
"""
import socket
import struct
import sys

ETH_P_CNM = 0x22E7
ETH_P_CNTAG = 0x22E9


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4_udp(src, dst, sport, dport, payload):
    """An IPv4 + UDP datagram with valid IP checksum (UDP checksum 0)."""
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + len(payload), 0x1234,
                               0x4000, 64, 17, 0, socket.inet_aton(src),
                               socket.inet_aton(dst)))
    ip[10:12] = struct.pack("!H", csum(bytes(ip)))
    return bytes(ip) + struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def cnm_pdu(qfb, cpid, qoff, qdelta, prio, edst, msdu, version=0, reserved=0,
            prio_low=0, msdu_len=None):
    w0 = (version << 12) | (reserved << 6) | qfb
    if msdu_len is None:
        msdu_len = len(msdu)
    return (struct.pack("!H", w0) + cpid + struct.pack("!hhH", qoff, qdelta,
                                                       (prio << 13) | prio_low)
            + edst + struct.pack("!H", msdu_len) + msdu)


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: cn_frames.py IFACE DST_MAC SRC_MAC\n")
        return 2
    ifname, dst, src = sys.argv[1], mac(sys.argv[2]), mac(sys.argv[3])
    hdr = dst + src
    udp = b"\x08\x00" + ipv4_udp("198.18.0.7", "198.18.0.8", 4242, 4343, bytes(range(100)))
    arp = b"\x08\x06" + bytes([0, 1, 8, 0, 6, 4, 0, 1]) + src + bytes([198, 18, 0, 7]) + \
        bytes(6) + bytes([198, 18, 0, 8])
    edges = [-32768, -1, 0, 1, 32767, -300, 12345, -12345]
    msdus = [udp[:64], b"", udp[:1], udp[:2], arp, udp[:64], udp[:40], udp[:64]]
    cnms = []
    for prio in range(8):
        cpid = src + struct.pack("!H", 0x1000 * prio + prio)
        cnms.append(cnm_pdu(prio * 9, cpid, edges[prio], edges[7 - prio], prio,
                            bytes([2, 0, 0, 0, 0, 0x60 + prio]), msdus[prio]))
    cnms.append(cnm_pdu(63, bytes(8), 0, 0, 0, bytes(6), udp[:64]))
    cnms.append(cnm_pdu(1, bytes(8), 0, 0, 0, bytes(6), b""))      # exactly 24 octets
    cpid = src + b"\x00\x01"
    edst = bytes([2, 0, 0, 0, 0, 0x64])
    bad = [
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64])[:20],          # truncated
        cnm_pdu(10, cpid, -100, 10, 0, edst, b"")[:23],
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64], version=1),     # version
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64], version=15),
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64], msdu_len=65),   # MSDU > 64
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:10], msdu_len=64),   # MSDU past the end
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:63], msdu_len=64),
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64], reserved=0x01), # reserved bits
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64], reserved=0x20),
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64], prio_low=0x0001),
        cnm_pdu(10, cpid, -100, 10, 7, edst, udp[:64], prio_low=0x1000),
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64], version=1, reserved=1),  # -> version
        cnm_pdu(10, cpid, -100, 10, 0, edst, udp[:64], reserved=1, msdu_len=65),  # -> reserved
    ]
    frames = []
    for i, pdu in enumerate(cnms + bad):
        f = hdr + struct.pack("!H", ETH_P_CNM) + pdu
        if i < len(cnms) and i % 2 and len(f) < 60:
            f += bytes(60 - len(f))            # Ethernet padding on every other one
        frames.append(f)
    n_cnm = len(frames)
    frames.append(hdr + struct.pack("!HHH", ETH_P_CNTAG, 0xBEEF, 0x0800) + udp[2:])
    frames.append(hdr + struct.pack("!HHH", ETH_P_CNTAG, 0x0001, 0x88B5) + bytes(46))

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    for f in frames:
        s.send(f)
    print("sent CNM=%d CNTAG=%d" % (n_cnm, len(frames) - n_cnm))
    return 0


if __name__ == "__main__":
    sys.exit(main())
