// The network behind the simulated access point (issue 38): what the
// Pico W's lwIP meets on the other side of target/cyw43.js's data channel.
//
// A user-space peer on the Ethernet frames the driver sends on SDPCM channel
// 2 (cyw43_ll_send_ethernet) and the frames it is given back on the same
// channel (cyw43_ll.c sdpcm_process_rx_packet DATA_HEADER ->
// cyw43_cb_process_ethernet, cyw43_lwip.c 272):
//   - ARP: answers who-has for the gateway and every relayed address, with
//     the gateway's MAC (the AP's BSSID: an AP that is its own router);
//   - DHCP server (RFC 2131, the replies broadcast): DISCOVER -> OFFER,
//     REQUEST -> ACK (or NAK for another address), one client address;
//   - ICMP echo: a ping to the gateway or a relayed address is answered;
//   - TCP: a connection the clock opens to the gateway (any port) or to an
//     address of the relay map is relayed to 127.0.0.1 on the host (node's
//     net.Socket): the handshake is answered only once the host's connect
//     succeeded (refused: RST), in-order data both ways with ACKs, the
//     clock's receive window honoured, unacknowledged data sent again after
//     RTO_NS, FIN and RST both ways.  Not modelled (dropped and logged as
//     UNSUPPORTED): IPv6, IP options and fragments, out-of-order segments
//     (a duplicate ACK asks for the missing data), urgent data, any UDP but
//     DHCP (DNS included), a connection to an address nobody has (ARP
//     unanswered, as on a LAN).
//
// Every frame handled is logged through `log` ("W <us> ARP ...", "DHCP ACK
// 192.168.4.2", "ICMP ...", "TCP ..."), what is not through `unsupported`.
//
// Faults (the harness's stdin, logged as "W <us> FAULT ..."):
//   - DROP <n>: a lossy link: from then on every n-th frame each way (the
//     clock's n-th, 2n-th, ... and the network's, counted apart) is lost,
//     ARP, DHCP and TCP alike, each logged "DROP ..."; deterministic, so a
//     run repeats.  DROP 0: no more losses.
//   - MOVE <old> <new>: the relayed address <old> becomes <new> (the hall
//     computer got a new address, e.g. a new DHCP lease): the relay map's
//     entries move to <new>, the connections to <old> are gone (their host
//     sockets closed), and <old> is nobody's: ARP for it is unanswered and
//     the frames a clock still sends there (its ARP cache) are lost without
//     an answer, as on a LAN where no host has the address (no RST).
//     MOVE <new> <old> gives the address back.
'use strict';
const net = require('net');

const ETH_IP4 = 0x0800, ETH_ARP = 0x0806, ETH_IP6 = 0x86dd;
const IP_ICMP = 1, IP_IGMP = 2, IP_TCP = 6, IP_UDP = 17;
const ARP_REQUEST = 1, ARP_REPLY = 2;
const ICMP_ECHO_REPLY = 0, ICMP_ECHO = 8;
const DHCP_SERVER_PORT = 67, DHCP_CLIENT_PORT = 68, DHCP_MAGIC = 0x63825363;
const DHCP = { DISCOVER: 1, OFFER: 2, REQUEST: 3, DECLINE: 4, ACK: 5, NAK: 6, RELEASE: 7, INFORM: 8 };
const DHCP_NAME = Object.fromEntries(Object.entries(DHCP).map(([k, v]) => [v, k]));
const OPT = { MASK: 1, ROUTER: 3, DNS: 6, REQUESTED_IP: 50, LEASE: 51, MSG_TYPE: 53, SERVER_ID: 54, END: 255, PAD: 0 };
const LEASE_S = 86400;
const TCP_FIN = 0x01, TCP_SYN = 0x02, TCP_RST = 0x04, TCP_PSH = 0x08, TCP_ACK = 0x10, TCP_URG = 0x20;
const TCP_OPT_MSS = 2;
const PEER_MSS = 1460;          // what the peer says it takes (its own receive side)
const PEER_WINDOW = 65535;      // the peer's receive window (node buffers what the host is slow to take)
const RTO_NS = 200e6;           // unacknowledged data sent again after this (simulated time)
const MAX_RESENDS = 12;
const PEER_ISS = 0x10000000;    // the peer's initial sequence number (fixed: runs repeat)
const TTL = 64;

const ip2s = (b, o = 0) => b[o] + '.' + b[o + 1] + '.' + b[o + 2] + '.' + b[o + 3];
const s2ip = (s) => Uint8Array.from(s.split('.').map(Number));
const mac2s = (b, o = 0) => Array.from(b.subarray(o, o + 6), (x) => x.toString(16).padStart(2, '0')).join(':');
const be16 = (b, o) => (b[o] << 8) | b[o + 1];
const be32 = (b, o) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
const put16 = (b, o, v) => { b[o] = (v >> 8) & 0xff; b[o + 1] = v & 0xff; };
const put32 = (b, o, v) => { put16(b, o, (v >>> 16) & 0xffff); put16(b, o + 2, v & 0xffff); };
const seqAdd = (a, n) => (a + n) >>> 0;
const seqDiff = (a, b) => (a - b) | 0;          // a - b as a signed 32-bit distance
const BROADCAST_MAC = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
const BROADCAST_IP = Uint8Array.from([255, 255, 255, 255]);

// The Internet checksum (RFC 1071) of the bytes, plus `sum` (a pseudo-header's)
function checksum(b, sum = 0) {
  for (let i = 0; i + 1 < b.length; i += 2) sum += (b[i] << 8) | b[i + 1];
  if (b.length & 1) sum += b[b.length - 1] << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return (~sum) & 0xffff;
}
function pseudoSum(src, dst, proto, len) {
  return be16(src, 0) + be16(src, 2) + be16(dst, 0) + be16(dst, 2) + proto + len;
}

// The network's addresses (defaults: a hall AP's 192.168.4.0/24)
const DEFAULT_CONFIG = { gateway: '192.168.4.1', client: '192.168.4.2', mask: '255.255.255.0' };

class NetPeer {
  // chip: sendFrame(bytes), log(line), unsupported(what), now() (ns), later(ns, fn);
  // gatewayMac: the AP's BSSID; relay: { 'ip:port': hostPort, 'ip': true } from parseRelay()
  constructor(chip, { gatewayMac, config = {}, relay = {} }) {
    this.chip = chip;
    this.cfg = Object.assign({}, DEFAULT_CONFIG, config);
    this.gw = s2ip(this.cfg.gateway);
    this.client = s2ip(this.cfg.client);
    this.mask = s2ip(this.cfg.mask);
    this.mac = gatewayMac;
    this.relay = relay;
    this.clientMac = null;        // learnt from the clock's frames
    this.leased = false;          // the DHCP ACK given
    this.ipId = 0;
    this.conns = new Map();       // 'clientPort>ip:port' -> Conn
    this.stats = { net_frames_in: 0, net_frames_out: 0, net_tcp_to_host: 0, net_tcp_from_host: 0,
      net_dropped_from_clock: 0, net_dropped_to_clock: 0 };
    this.dropEvery = 0;           // DROP n: every n-th frame each way lost (0: none)
    this.dropCount = [0, 0];      // frames from / to the clock since DROP
  }

  // -- faults ---------------------------------------------------------------------------
  setDrop(n) {
    this.dropEvery = n > 0 ? n : 0;
    this.dropCount = [0, 0];
    this.log('FAULT DROP ' + (this.dropEvery ? 'every ' + this.dropEvery + ' frames each way, one lost' : 'off: no frame lost'));
  }
  // whether this frame (way 0: from the clock, 1: to it) is lost
  dropped(way, f) {
    if (!this.dropEvery || ++this.dropCount[way] % this.dropEvery) return false;
    this.stats[way ? 'net_dropped_to_clock' : 'net_dropped_from_clock'] += 1;
    this.log('DROP frame ' + this.dropCount[way] + ' ' + (way ? 'to' : 'from') + ' the clock (' + f.length + ' bytes, type ' +
      be16(f, 12).toString(16).padStart(4, '0') + ')');
    return true;
  }
  move(from, to) {
    if (!/^\d+\.\d+\.\d+\.\d+$/.test(from) || !/^\d+\.\d+\.\d+\.\d+$/.test(to) || from === this.cfg.gateway || to === this.cfg.gateway) {
      this.chip.unsupported('MOVE ' + from + ' ' + to + ': not two relayed IPv4 addresses'); return;
    }
    const relay = {};
    let n = 0;
    for (const [k, v] of Object.entries(this.relay)) {
      const [ip, port] = k.split(':');
      if (ip === from) { relay[to + (port ? ':' + port : '')] = v; n++; } else relay[k] = v;
    }
    if (!n) { this.chip.unsupported('MOVE ' + from + ' ' + to + ': ' + from + ' is not relayed'); return; }
    this.relay = relay;
    let lost = 0;
    for (const c of Array.from(this.conns.values())) if (ip2s(c.pip) === from) { c.vanish(); lost++; }
    this.log('FAULT MOVE ' + from + ' -> ' + to + ': ' + from + ' is nobody\'s now, ' + lost + ' connection(s) to it gone');
  }
  log(line) { this.chip.log(line); }

  // Is ip (a string) an address the peer answers for?  The gateway, and the relay map's
  owns(ip) { return ip === this.cfg.gateway || Object.keys(this.relay).some((k) => k.split(':')[0] === ip); }
  // the host port a TCP connection to ip:port goes to, or null
  hostPort(ip, port) {
    const k = ip + ':' + port;
    if (k in this.relay) return this.relay[k];
    if (ip === this.cfg.gateway || this.relay[ip] === true) return port;
    return null;
  }

  // -- frames from the clock ---------------------------------------------------------
  fromClock(f) {
    this.stats.net_frames_in += 1;
    if (f.length >= 14 && this.dropped(0, f)) return;
    if (f.length < 14) { this.chip.unsupported('data frame of ' + f.length + ' bytes (no Ethernet header)'); return; }
    const type = be16(f, 12);
    this.clientMac = Uint8Array.from(f.subarray(6, 12));
    if (type === ETH_ARP) return this.arp(f.subarray(14));
    if (type === ETH_IP4) return this.ip4(f.subarray(14));
    this.chip.unsupported('data frame of ' + f.length + ' bytes ' + mac2s(f, 6) + ' > ' + mac2s(f, 0) + ' type ' +
      type.toString(16).padStart(4, '0') + (type === ETH_IP6 ? ' (IPv6)' : ''));
  }
  arp(a) {
    if (a.length < 28 || be16(a, 0) !== 1 || be16(a, 2) !== ETH_IP4 || a[4] !== 6 || a[5] !== 4) {
      this.chip.unsupported('ARP packet not Ethernet/IPv4'); return;
    }
    const op = be16(a, 6), spa = ip2s(a, 14), tpa = ip2s(a, 24);
    if (op !== ARP_REQUEST) { this.log('ARP op ' + op + ' from ' + spa + ' (not answered)'); return; }
    if (!this.owns(tpa)) {
      this.log('ARP who-has ' + tpa + ' tell ' + spa + ': nobody' + (tpa === spa ? ' (the clock\'s own: gratuitous)' : ''));
      return;
    }
    const r = new Uint8Array(28);
    put16(r, 0, 1); put16(r, 2, ETH_IP4); r[4] = 6; r[5] = 4; put16(r, 6, ARP_REPLY);
    r.set(this.mac, 8); r.set(s2ip(tpa), 14); r.set(a.subarray(8, 14), 18); r.set(a.subarray(14, 18), 24);
    this.log('ARP who-has ' + tpa + ' tell ' + spa + ': is-at ' + mac2s(this.mac));
    this.sendEth(a.subarray(8, 14), ETH_ARP, r);
  }
  ip4(p) {
    if (p.length < 20 || (p[0] >> 4) !== 4) { this.chip.unsupported('IPv4 packet with a bad header'); return; }
    const ihl = (p[0] & 0x0f) * 4, total = be16(p, 2), proto = p[9];
    const src = ip2s(p, 12), dst = ip2s(p, 16);
    if (proto === IP_IGMP) { this.chip.unsupported('IGMP ' + src + ' > ' + dst + ' (multicast membership)'); return; }
    if (ihl !== 20) { this.chip.unsupported('IPv4 options (' + src + ' > ' + dst + ')'); return; }
    if (total > p.length || total < ihl) { this.chip.unsupported('IPv4 length ' + total + ' of a ' + p.length + '-byte frame'); return; }
    if ((be16(p, 6) & 0x3fff) !== 0) { this.chip.unsupported('IPv4 fragment ' + src + ' > ' + dst); return; }
    if (checksum(p.subarray(0, 20)) !== 0) { this.log('IPv4 ' + src + ' > ' + dst + ': bad header checksum, dropped'); return; }
    const body = p.subarray(ihl, total);
    const sip = p.subarray(12, 16), dip = p.subarray(16, 20);
    if (proto === IP_UDP && body.length >= 8 && be16(body, 2) === DHCP_SERVER_PORT) return this.dhcp(body.subarray(8, be16(body, 4)));
    if (proto === IP_UDP) {
      this.chip.unsupported('udp ' + src + ':' + be16(body, 0) + ' > ' + dst + ':' + be16(body, 2) + ' (' + (body.length - 8) + ' bytes)');
      return;
    }
    if (proto === IP_ICMP) return this.icmp(sip, dip, body);
    if (proto === IP_TCP) return this.tcp(sip, dip, body);
    this.chip.unsupported('IPv4 protocol ' + proto + ' ' + src + ' > ' + dst);
  }

  // -- DHCP ----------------------------------------------------------------------------
  dhcp(m) {
    if (m.length < 240 || m[0] !== 1 || be32(m, 236) !== DHCP_MAGIC) { this.chip.unsupported('DHCP message not a BOOTREQUEST'); return; }
    const opts = {};
    for (let i = 240; i < m.length;) {
      const code = m[i];
      if (code === OPT.END) break;
      if (code === OPT.PAD) { i += 1; continue; }
      const len = m[i + 1];
      opts[code] = m.subarray(i + 2, i + 2 + len);
      i += 2 + len;
    }
    const type = opts[OPT.MSG_TYPE] ? opts[OPT.MSG_TYPE][0] : 0;
    const name = DHCP_NAME[type] || String(type);
    const chaddr = m.subarray(28, 34);
    const asked = opts[OPT.REQUESTED_IP] && opts[OPT.REQUESTED_IP].length === 4 ? ip2s(opts[OPT.REQUESTED_IP]) : ip2s(m, 12);
    if (type === DHCP.DISCOVER) {
      this.log('DHCP DISCOVER from ' + mac2s(chaddr));
      this.dhcpReply(m, DHCP.OFFER);
    } else if (type === DHCP.REQUEST) {
      const sid = opts[OPT.SERVER_ID] ? ip2s(opts[OPT.SERVER_ID]) : null;
      this.log('DHCP REQUEST ' + asked + (sid ? ' from server ' + sid : ''));
      if (sid !== null && sid !== this.cfg.gateway) { this.log('DHCP REQUEST for another server: not answered'); return; }
      this.dhcpReply(m, asked === this.cfg.client ? DHCP.ACK : DHCP.NAK);
    } else if (type === DHCP.RELEASE || type === DHCP.DECLINE) {
      this.log('DHCP ' + name + ' ' + ip2s(m, 12));
      this.leased = false;
    } else this.chip.unsupported('DHCP ' + name + ' from ' + mac2s(chaddr));
  }
  dhcpReply(req, type) {
    const opts = [[OPT.MSG_TYPE, [type]], [OPT.SERVER_ID, this.gw]];
    if (type !== DHCP.NAK) {
      const lease = [0, 0, 0, 0]; put32(lease, 0, LEASE_S);
      opts.push([OPT.LEASE, lease], [OPT.MASK, this.mask], [OPT.ROUTER, this.gw], [OPT.DNS, this.gw]);
    }
    const olen = opts.reduce((n, [, v]) => n + 2 + v.length, 0) + 1;
    const m = new Uint8Array(Math.max(300, 240 + olen));  // BOOTP's 300-byte minimum
    m[0] = 2; m[1] = 1; m[2] = 6;                           // BOOTREPLY, Ethernet
    m.set(req.subarray(4, 8), 4);                           // xid
    m.set(req.subarray(10, 12), 10);                        // flags
    if (type !== DHCP.NAK) { m.set(this.client, 16); m.set(this.gw, 20); }   // yiaddr, siaddr
    m.set(req.subarray(28, 44), 28);                        // chaddr
    put32(m, 236, DHCP_MAGIC);
    let i = 240;
    for (const [code, v] of opts) { m[i] = code; m[i + 1] = v.length; m.set(v, i + 2); i += 2 + v.length; }
    m[i] = OPT.END;
    this.log('DHCP ' + DHCP_NAME[type] + (type === DHCP.NAK ? '' : ' ' + this.cfg.client + ' mask ' + this.cfg.mask +
      ' router ' + this.cfg.gateway + ' dns ' + this.cfg.gateway + ' lease ' + LEASE_S + ' s'));
    if (type === DHCP.ACK) this.leased = true;
    this.sendUdp(BROADCAST_MAC, BROADCAST_IP, DHCP_SERVER_PORT, DHCP_CLIENT_PORT, m, this.gw);
  }

  // -- ICMP ----------------------------------------------------------------------------
  icmp(sip, dip, b) {
    if (b.length < 8 || checksum(b) !== 0) { this.log('ICMP ' + ip2s(sip) + ' > ' + ip2s(dip) + ': bad checksum, dropped'); return; }
    if (b[0] === ICMP_ECHO && this.owns(ip2s(dip))) {
      const r = Uint8Array.from(b);
      r[0] = ICMP_ECHO_REPLY; r[2] = 0; r[3] = 0;
      put16(r, 2, checksum(r));
      this.log('ICMP echo ' + ip2s(sip) + ' > ' + ip2s(dip) + ' id ' + be16(b, 4) + ' seq ' + be16(b, 6) + ': reply');
      this.sendIp(IP_ICMP, dip, sip, r);
    } else if (b[0] === ICMP_ECHO_REPLY) {
      this.log('ICMP echo reply ' + ip2s(sip) + ' > ' + ip2s(dip) + ' id ' + be16(b, 4) + ' seq ' + be16(b, 6));
    } else this.chip.unsupported('ICMP type ' + b[0] + ' ' + ip2s(sip) + ' > ' + ip2s(dip));
  }
  // a ping to the clock (the harness's NET PING): lwIP answers it
  ping(ip, seq) {
    const r = new Uint8Array(8 + 32);
    r[0] = ICMP_ECHO; put16(r, 4, 0x4e50); put16(r, 6, seq);
    for (let i = 8; i < r.length; i++) r[i] = i;
    put16(r, 2, checksum(r));
    this.log('ICMP echo ' + this.cfg.gateway + ' > ' + ip + ' id ' + 0x4e50 + ' seq ' + seq);
    this.sendIp(IP_ICMP, this.gw, s2ip(ip), r);
  }

  // -- TCP -----------------------------------------------------------------------------
  tcp(sip, dip, t) {
    if (t.length < 20) { this.chip.unsupported('TCP segment of ' + t.length + ' bytes'); return; }
    if (checksum(t, pseudoSum(sip, dip, IP_TCP, t.length)) !== 0) {
      this.log('TCP ' + ip2s(sip) + ' > ' + ip2s(dip) + ': bad checksum, dropped'); return;
    }
    const seg = {
      sport: be16(t, 0), dport: be16(t, 2), seq: be32(t, 4), ack: be32(t, 8),
      off: (t[12] >> 4) * 4, flags: t[13], wnd: be16(t, 14),
    };
    seg.data = t.subarray(seg.off);
    seg.opts = t.subarray(20, seg.off);
    const dst = ip2s(dip), key = seg.sport + '>' + dst + ':' + seg.dport;
    const name = ip2s(sip) + ':' + seg.sport + ' > ' + dst + ':' + seg.dport;
    let c = this.conns.get(key);
    if (!c && !this.owns(dst)) {   // (sent on a stale ARP entry: no host has it, no answer)
      this.log('TCP ' + name + ' ' + flagNames(seg.flags) + ': nobody has ' + dst + ', lost');
      return;
    }
    if (!c) {
      if (seg.flags & TCP_RST) return;
      const port = this.hostPort(dst, seg.dport);
      if (!(seg.flags & TCP_SYN) || (seg.flags & TCP_ACK) || port === null) {
        this.log('TCP ' + name + ' ' + flagNames(seg.flags) + ': no connection' + (port === null ? ' (not relayed)' : '') + ', RST');
        this.sendRst(sip, dip, seg);
        return;
      }
      c = new Conn(this, key, name, Uint8Array.from(sip), Uint8Array.from(dip), seg, port);
      this.conns.set(key, c);
      return;
    }
    c.segment(seg);
  }
  sendRst(sip, dip, seg) {
    // RFC 793: to a segment with ACK, seq = its ack; else seq 0 and ack = its seq + its length
    const hasAck = !!(seg.flags & TCP_ACK);
    const len = seg.data.length + (seg.flags & TCP_SYN ? 1 : 0) + (seg.flags & TCP_FIN ? 1 : 0);
    this.sendTcp(dip, sip, seg.dport, seg.sport, hasAck ? seg.ack : 0, seqAdd(seg.seq, len),
      TCP_RST | (hasAck ? 0 : TCP_ACK), 0, new Uint8Array(0));
  }
  sendTcp(sip, dip, sport, dport, seq, ack, flags, wnd, data, opts = new Uint8Array(0)) {
    const off = 20 + opts.length;
    const t = new Uint8Array(off + data.length);
    put16(t, 0, sport); put16(t, 2, dport); put32(t, 4, seq); put32(t, 8, ack);
    t[12] = (off / 4) << 4; t[13] = flags; put16(t, 14, wnd);
    t.set(opts, 20); t.set(data, off);
    put16(t, 16, checksum(t, pseudoSum(sip, dip, IP_TCP, t.length)));
    this.sendIp(IP_TCP, sip, dip, t);
  }

  // -- frames to the clock ---------------------------------------------------------------
  sendUdp(dmac, dip, sport, dport, data, sip) {
    const u = new Uint8Array(8 + data.length);
    put16(u, 0, sport); put16(u, 2, dport); put16(u, 4, u.length); u.set(data, 8);
    put16(u, 6, checksum(u, pseudoSum(sip, dip, IP_UDP, u.length)) || 0xffff);
    this.sendIp(IP_UDP, sip, dip, u, dmac);
  }
  sendIp(proto, sip, dip, body, dmac) {
    const p = new Uint8Array(20 + body.length);
    p[0] = 0x45; put16(p, 2, p.length); put16(p, 4, this.ipId = (this.ipId + 1) & 0xffff);
    put16(p, 6, 0x4000);                                    // don't fragment
    p[8] = TTL; p[9] = proto; p.set(sip, 12); p.set(dip, 16);
    put16(p, 10, checksum(p.subarray(0, 20)));
    p.set(body, 20);
    this.sendEth(dmac || this.clientMac || BROADCAST_MAC, ETH_IP4, p);
  }
  sendEth(dmac, type, payload) {
    const f = new Uint8Array(14 + payload.length);
    f.set(dmac, 0); f.set(this.mac, 6); put16(f, 12, type); f.set(payload, 14);
    if (this.dropped(1, f)) return;
    this.stats.net_frames_out += 1;
    this.chip.sendFrame(f);
  }
}

function flagNames(fl) {
  const n = [];
  for (const [bit, s] of [[TCP_SYN, 'SYN'], [TCP_ACK, 'ACK'], [TCP_FIN, 'FIN'], [TCP_RST, 'RST'], [TCP_PSH, 'PSH'], [TCP_URG, 'URG']]) if (fl & bit) n.push(s);
  return n.join('|') || 'none';
}

// One TCP connection the clock opened, relayed to 127.0.0.1:hostPort.
// States (RFC 793's names, the peer's side): CONNECTING (the clock's SYN
// taken, the host's connect pending: nothing answered yet), SYN_RCVD
// (SYN-ACK sent), ESTABLISHED, CLOSE_WAIT (the clock's FIN taken), and the
// closing ones once the host ended: FIN_WAIT (the peer's FIN sent, the
// clock's may come), LAST_ACK (both FINs, waiting for the ACK of ours),
// CLOSED (forgotten).
class Conn {
  constructor(peer, key, name, cip, pip, syn, hostPort) {
    this.peer = peer; this.key = key; this.name = name;
    this.cip = cip; this.pip = pip; this.cport = syn.sport; this.pport = syn.dport;
    this.rcvNxt = seqAdd(syn.seq, 1);
    this.iss = PEER_ISS;
    this.sndUna = this.iss; this.sndNxt = this.iss;
    this.sndWnd = syn.wnd;
    this.mss = 536;                       // RFC 1122's default, unless the SYN says
    for (let i = 0; i < syn.opts.length;) {
      const k = syn.opts[i];
      if (k === 0) break;
      if (k === 1) { i += 1; continue; }
      if (k === TCP_OPT_MSS && syn.opts[i + 1] === 4) this.mss = be16(syn.opts, i + 2);
      i += syn.opts[i + 1] || 1;
    }
    this.out = Buffer.alloc(0);           // from the host, not yet acknowledged by the clock (from sndUna)
    this.hostEnded = false;               // the host closed its side: a FIN goes after the data
    this.finSent = false;
    this.clockFin = false;
    this.resends = 0;
    this.timer = null;
    this.state = 'CONNECTING';
    this.log('SYN (mss ' + this.mss + ', window ' + syn.wnd + '): connecting to 127.0.0.1:' + hostPort);
    this.sock = net.connect({ host: '127.0.0.1', port: hostPort });
    this.sock.setNoDelay(true);
    this.sock.on('connect', () => this.peer.chip.later(this.peer.chip.now(), () => this.hostConnected()));
    this.sock.on('data', (b) => this.peer.chip.later(this.peer.chip.now(), () => this.hostData(b)));
    this.sock.on('end', () => this.peer.chip.later(this.peer.chip.now(), () => this.hostEnd()));
    this.sock.on('error', (e) => this.peer.chip.later(this.peer.chip.now(), () => this.hostError(e)));
  }
  log(s) { this.peer.log('TCP ' + this.name + ' ' + s); }
  send(flags, seq, data = new Uint8Array(0), opts) {
    this.peer.sendTcp(this.pip, this.cip, this.pport, this.cport, seq, this.rcvNxt, flags, PEER_WINDOW, data, opts);
  }
  ack() { this.send(TCP_ACK, this.sndNxt); }
  reset(why) {
    this.log('RST sent: ' + why);
    this.send(TCP_RST | TCP_ACK, this.sndNxt);
    this.close();
  }
  close() {
    this.state = 'CLOSED';
    this.peer.conns.delete(this.key);
    this.sock.destroy();
  }
  // its address moved away (MOVE): forgotten without a word to the clock
  vanish() {
    this.log('gone with its address (host socket closed)');
    if (this.timer) { this.peer.chip.cancel(this.timer); this.timer = null; }
    this.close();
  }

  // the host's side
  hostConnected() {
    if (this.state !== 'CONNECTING') return;
    this.state = 'SYN_RCVD';
    const mss = new Uint8Array([TCP_OPT_MSS, 4, PEER_MSS >> 8, PEER_MSS & 0xff]);
    this.send(TCP_SYN | TCP_ACK, this.iss, undefined, mss);
    this.sndNxt = seqAdd(this.iss, 1);
    this.log('host connected: SYN|ACK');
    this.arm();
  }
  hostError(e) {
    if (this.state === 'CLOSED') return;
    if (this.state === 'CONNECTING') {
      this.log('host ' + (e.code || e.message) + ': RST');
      this.send(TCP_RST | TCP_ACK, 0);
      this.close();
      return;
    }
    this.reset('host ' + (e.code || e.message));
  }
  hostData(b) {
    if (this.state === 'CLOSED') return;
    this.peer.stats.net_tcp_from_host += b.length;
    this.out = Buffer.concat([this.out, b]);
    this.log('host sent ' + b.length + ' bytes');
    this.pump();
  }
  hostEnd() {
    if (this.state === 'CLOSED') return;
    this.log('host closed its side');
    this.hostEnded = true;
    this.pump();
  }
  // what may go to the clock now: data within its window, then our FIN
  pump() {
    if (this.state === 'CONNECTING' || this.state === 'SYN_RCVD' || this.state === 'CLOSED') return;
    for (;;) {
      const sent = seqDiff(this.sndNxt, this.sndUna);          // bytes in flight
      const unsent = this.out.length - sent;
      const room = this.sndWnd - sent;
      if (unsent <= 0 || room <= 0) break;
      const n = Math.min(unsent, room, this.mss);
      const at = sent;
      this.send(TCP_ACK | TCP_PSH, this.sndNxt, this.out.subarray(at, at + n));
      this.sndNxt = seqAdd(this.sndNxt, n);
    }
    if (this.hostEnded && !this.finSent && seqDiff(this.sndNxt, this.sndUna) === this.out.length) {
      this.send(TCP_FIN | TCP_ACK, this.sndNxt);
      this.sndNxt = seqAdd(this.sndNxt, 1);
      this.finSent = true;
      this.state = this.clockFin ? 'LAST_ACK' : 'FIN_WAIT';
      this.log('FIN sent');
    }
    this.arm();
  }
  // the timer: anything unacknowledged goes again from sndUna after RTO_NS
  arm() {
    if (this.timer || this.sndNxt === this.sndUna) return;
    const chip = this.peer.chip;
    this.timer = chip.later(chip.now() + RTO_NS, () => {
      this.timer = null;
      if (this.state === 'CLOSED' || this.sndNxt === this.sndUna) return;
      if (++this.resends > MAX_RESENDS) { this.reset('no ACK after ' + MAX_RESENDS + ' resends'); return; }
      this.log('resend from ' + seqDiff(this.sndUna, this.iss) + ' (' + seqDiff(this.sndNxt, this.sndUna) + ' unacknowledged)');
      if (this.state === 'SYN_RCVD') {
        const mss = new Uint8Array([TCP_OPT_MSS, 4, PEER_MSS >> 8, PEER_MSS & 0xff]);
        this.send(TCP_SYN | TCP_ACK, this.iss, undefined, mss);
      } else {
        this.sndNxt = this.sndUna;
        this.finSent = false;
        if (this.state === 'FIN_WAIT' || this.state === 'LAST_ACK') this.state = this.clockFin ? 'CLOSE_WAIT' : 'ESTABLISHED';
        this.pump();
      }
      this.arm();
    });
  }

  // the clock's segments
  segment(s) {
    if (s.flags & TCP_RST) {
      this.log('RST from the clock');
      this.close();
      return;
    }
    if (this.state === 'CONNECTING') return;     // a SYN resent before the host answered: the SYN|ACK comes
    if (s.flags & TCP_SYN) {
      if (this.state === 'SYN_RCVD' && s.seq === seqAdd(this.rcvNxt, -1)) {  // our SYN|ACK lost: again
        const mss = new Uint8Array([TCP_OPT_MSS, 4, PEER_MSS >> 8, PEER_MSS & 0xff]);
        this.send(TCP_SYN | TCP_ACK, this.iss, undefined, mss);
      } else this.reset('SYN in ' + this.state);
      return;
    }
    if (s.flags & TCP_URG) this.peer.chip.unsupported('TCP urgent data on ' + this.name + ' (taken as ordinary data)');
    if (s.flags & TCP_ACK) this.acked(s);
    if (this.state === 'CLOSED') return;
    // data and FIN, in order only
    const len = s.data.length + (s.flags & TCP_FIN ? 1 : 0);
    if (len === 0) return;
    const d = seqDiff(s.seq, this.rcvNxt);
    if (d > 0) {
      this.log('segment ' + d + ' bytes ahead (out of order): dropped, ACK ' + seqDiff(this.rcvNxt, 0));
      this.ack();
      return;
    }
    const fresh = s.data.subarray(-d < s.data.length ? -d : s.data.length);
    if (fresh.length) {
      this.rcvNxt = seqAdd(this.rcvNxt, fresh.length);
      this.peer.stats.net_tcp_to_host += fresh.length;
      this.log(fresh.length + ' bytes to the host' + (d < 0 ? ' (' + (-d) + ' resent, skipped)' : ''));
      if (!this.clockFin) this.sock.write(Buffer.from(fresh));
    } else if (d < 0 && !(s.flags & TCP_FIN && seqAdd(s.seq, s.data.length) === this.rcvNxt)) {
      this.ack();            // all old: the clock resent; tell it again what we have
      return;
    }
    if ((s.flags & TCP_FIN) && !this.clockFin && seqAdd(s.seq, s.data.length) === this.rcvNxt) {
      this.rcvNxt = seqAdd(this.rcvNxt, 1);
      this.clockFin = true;
      this.log('FIN from the clock');
      this.sock.end();
      if (this.state === 'ESTABLISHED') this.state = 'CLOSE_WAIT';
      else if (this.state === 'FIN_WAIT') { this.ack(); this.log('closed'); this.close(); return; }
    }
    this.ack();
  }
  acked(s) {
    const a = seqDiff(s.ack, this.sndUna), inflight = seqDiff(this.sndNxt, this.sndUna);
    if (a < 0 || a > inflight) { this.log('ACK ' + seqDiff(s.ack, this.iss) + ' outside the window: ignored'); return; }
    if (this.state === 'SYN_RCVD') {
      if (a < 1) return;
      this.state = 'ESTABLISHED';
      this.log('ESTABLISHED');
    }
    // bytes of data acknowledged: the SYN and FIN take a sequence number each, not out's bytes
    let bytes = a;
    if (seqDiff(this.sndUna, this.iss) === 0 && a > 0) bytes -= 1;              // our SYN
    if (this.finSent && a === inflight && bytes > 0) bytes -= 1;                // our FIN
    this.out = this.out.subarray(Math.min(bytes, this.out.length));
    this.sndUna = s.ack;
    this.sndWnd = s.wnd;
    if (a > 0) this.resends = 0;
    if (this.finSent && this.sndUna === this.sndNxt) {
      if (this.state === 'LAST_ACK') { this.log('closed'); this.close(); return; }
    }
    this.pump();
  }
}

// --net-relay's value: comma-separated "IP" (every port, to the same host
// port) or "IP:PORT=HOSTPORT"
function parseRelay(spec) {
  const relay = {};
  for (const part of (spec || '').split(',').filter((x) => x)) {
    const m = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+)=(\d+))?$/.exec(part);
    if (!m) throw new Error('--net-relay: not IP or IP:PORT=HOSTPORT: ' + part);
    if (m[2]) relay[m[1] + ':' + m[2]] = Number(m[3]); else relay[m[1]] = true;
  }
  return relay;
}

module.exports = { NetPeer, parseRelay, checksum, DEFAULT_CONFIG };
