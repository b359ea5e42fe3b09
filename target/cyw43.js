// The Pico W's radio, a CYW43439, on the emulated Pico (issue 38).
//
// What the real image's cyw43-driver (lib/cyw43-driver, commit 055d6427 in
// MicroPython v1.28.0) sees of the chip, modelled at the pins:
//   GPIO 23 WL_ON (power/reset), 25 CS (SIO), 29 CLK and 24 DATA (PIO: pico-sdk's
//   cyw43_bus_pio_spi.pio, spi_gap01_sample0), 24 also the chip's HOST_WAKE line.
//
// Why the pins and not the PIO FIFOs: the bits the model decodes are the ones
// the real PIO program clocks out and in, fed by the real DMA channels (with
// their byte swap) from the driver's buffers.  A wrong wrap, bit count, pin
// direction or sample edge in that path breaks the model's bus exactly as it
// would break the chip's; a FIFO-level model would take the driver's words on
// trust.  To make that possible the PIO is stepped here in simulated time
// (clk_sys / the state machine's integer divider), not by rp2040js's own
// wall-clock timer (setTimeout, 1000 steps a tick), which runs the PIO at no
// fixed rate against the core.
//
// The chip's side of each edge: it samples DATA on CLK's rising edge (the
// 32-bit command, then a write's data) and, in a read, launches each response
// bit on a rising edge, the first one on the rising edge after the command's
// last bit (the program's turnaround `nop side 1`); the PIO samples on the
// falling edge.  Reset state: 16-bit words (each 32-bit value sent as its two
// 16-bit halves, low half first, each MSB first: the driver's SWAP32 / rev16);
// after SPI_BUS_CONTROL is written with WORD_LENGTH_32: 32-bit little-endian
// words.  F1 reads are preceded by SPI_RESP_DELAY_F1 bytes of padding.
//
// Modelled: the gSPI bus registers (F0: control, interrupt, enable, status,
// function info, test 0xFEEDBEAD, response delays), the F1 SDIO-core registers
// (backplane window, chip clock CSR with ALP/HT avail, watermark, pull-ups,
// wake-up, sleep CSR/KSO), the backplane (512 KB SOCRAM, the ARM and SOCRAM
// cores' wrapper IOCTRL/RESETCTRL, SOCRAM bank index/PDA, the SDIO core's
// interrupt mask/status), the firmware and NVRAM upload checked (when the ARM
// core leaves reset) against the blob compiled into the driver, by length and
// SHA-256 (HT clock and F2 ready only come after a good upload, as on a chip
// whose firmware boots), and the SDPCM control channel for the ioctls of
// cyw43_ll_bus_init (the CLM download checked the same way, bus:txglom, apsta,
// cur_etheraddr).  Everything else is logged as "W UNSUPPORTED ..." (and
// answered with zeros on the bus, or BCME_UNSUPPORTED on the control channel).
//
// Faults on the radio (the harness's stdin "AP DOWN" / "AP UP", apDown() /
// apUp() here): the access point vanishing mid-game and coming back.  AP
// DOWN is an AP switched off by its owner: to an associated station it
// sends what a real CYW43439 gives the host when its AP deauthenticates it
// on leaving, DEAUTH_IND (status 0, 802.11 reason 3, "leaving") and LINK
// down (flags 0, reason 2, WLC_E_LINK_DISASSOC), JOIN_EVENT_GAP_NS apart.
// The driver (cyw43_ctrl.c) ignores a DEAUTH_IND whose reason is not 2
// (396-401: only reason 2, a refused passphrase, makes it disassociate) and
// takes the LINK down to netif_set_link_down (402-415, cyw43_lwip.c
// 296-298); its join state stays ACTIVE, so WLAN.status() says
// STAT_CONNECTING (cyw43_wifi_link_status 613-630) and isconnected() is
// false, and it never joins again by itself (a rejoin only follows a key
// exchange timeout, an ICV error or a PRUNE: 366-372, 416-432).  While the
// AP is gone no frame passes either way (each logged "W <us> DROP ..."), and
// a join is refused as one for an SSID nobody has: SET_SSID NO_NETWORKS
// (-> NONET, WLAN.status() STAT_NO_AP_FOUND).  AP UP: the AP is back; the
// station must join again (nothing is sent to it), and that join is
// accepted as at boot.  (A beacon loss, an AP that loses its power, gives
// the host the same LINK down without the DEAUTH_IND.)
//
// Out (through `out`): "W <simulated us> <event> ..." lines: milestones (W STEP), the upload
// checks (W FW, W NVRAM, W CLM), ioctls (W IOCTL), the faults (W FAULT, W DROP), and W UNSUPPORTED.
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const { NetPeer } = require('./netpeer.js');   // the network behind the AP (ARP, DHCP, ICMP, TCP relay)

const PIN_ON = 23, PIN_DATA = 24, PIN_CS = 25, PIN_CLK = 29;
const RAM_SIZE = 512 * 1024;
const TEST_PATTERN = 0xfeedbead;
// F0 (bus) registers
const BUS_CONTROL = 0x00, INT_REG = 0x04, INT_ENABLE = 0x06, STATUS_REG = 0x08,
  F1_INFO = 0x0c, F2_INFO = 0x0e, F3_INFO = 0x10, TEST_RO = 0x14, TEST_RW = 0x18,
  RESP_DELAY_F0 = 0x1c;
const WORD_LENGTH_32 = 0x01;
const F2_PACKET_AVAILABLE = 0x0020;
const STATUS_F2_RX_READY = 0x20, STATUS_F2_PKT_AVAILABLE = 0x100;
// F1 registers
const F1_WATERMARK = 0x10008, BP_LOW = 0x1000a, BP_MID = 0x1000b, BP_HIGH = 0x1000c,
  FRAME_CONTROL = 0x1000d, CLOCK_CSR = 0x1000e, PULL_UP = 0x1000f, WAKEUP_CTRL = 0x1001e,
  SLEEP_CSR = 0x1001f;
const ALP_AVAIL_REQ = 0x08, HT_AVAIL_REQ = 0x10, FORCE_ALP = 0x01, FORCE_HT = 0x02,
  ALP_AVAIL = 0x40, HT_AVAIL = 0x80;
const KSO = 0x01, DEVICE_ON = 0x02;
// backplane
const ARM_WRAP = 0x18103000, SOCRAM_WRAP = 0x18104000, IOCTRL = 0x408, RESETCTRL = 0x800;
const BP_REGS = {
  0x18000508: 'chipcommon SR_CONTROL1', 0x18002020: 'sdio INT_STATUS',
  0x18002024: 'sdio INT_HOST_MASK', 0x18002034: 'sdio FUNCTION_INT_MASK',
  0x18002040: 'sdio TO_SB_MAILBOX', 0x18004010: 'socsram BANKX_INDEX',
  0x18004044: 'socsram BANKX_PDA',
};
const HT_BOOT_NS = 29e6;        // "wait until HT clock is available; takes about 29ms" (cyw43_ll.c)
const WLC_GET_VAR = 262, WLC_SET_VAR = 263;
const BCME_UNSUPPORTED = -23;
const WLC_UP = 2;
// settings the firmware takes and keeps (cyw43_ll_bus_init, cyw43_ll_wifi_on,
// cyw43_ll_wifi_pm): stored, answered as set, no radio effect modelled
const U32_VARS = new Set(['bus:txglom', 'apsta', 'ampdu_ba_wsize', 'ampdu_mpdu', 'ampdu_rx_factor',
  'pm2_sleep_ret', 'bcn_li_bcn', 'bcn_li_dtim', 'assoc_listen']);
const U32_IOCTLS = { 2: 'WLC_UP', 64: 'WLC_SET_ANTDIV', 86: 'WLC_SET_PM', 110: 'WLC_SET_GMODE',
  142: 'WLC_SET_BAND', 20: 'WLC_SET_INFRA', 22: 'WLC_SET_AUTH', 134: 'WLC_SET_WSEC',
  165: 'WLC_SET_WPA_AUTH' };
// the join (cyw43_ll_wifi_join): "bsscfg:" iovars of (bsscfg index u32, value u32),
// the passphrase (WLC_SET_WSEC_PMK, wsec_pmk_t: key_len u16, flags u16, key[64])
// and the SSID (WLC_SET_SSID, wlc_ssid_t: len u32, ssid[32]), then events
const JOIN_VARS = new Set(['mfp']);
const BSSCFG_VARS = new Set(['bsscfg:sup_wpa', 'bsscfg:sup_wpa2_eapver', 'bsscfg:sup_wpa_tmo']);
const WLC_SET_SSID = 26, WLC_SET_WSEC_PMK = 268;
// BCM events (cyw43_ll.h CYW43_EV_*), and the statuses/reasons a real join gives
const EV = { SET_SSID: 0, AUTH: 3, DEAUTH_IND: 6, LINK: 16, PSK_SUP: 46 };
const WLC_SUP_KEYED = 6, WLC_SUP_KEYXCHANGE_WAIT_M3 = 5, WLC_E_SUP_DEAUTH = 14,
  WLC_E_STATUS_NO_NETWORKS = 3, DOT11_RC_NOT_AUTH = 2;
// the AP leaving (apDown): 802.11's reason 3 (deauthenticated: the AP is
// leaving) and the LINK event's reason for a link lost to a disassociation
const DOT11_RC_DEAUTH_LEAVING = 3, WLC_E_LINK_DISASSOC = 2;
const JOIN_EVENT_GAP_NS = 2e6;   // between a join's events (simulated time, an assumption)
const NET_LATENCY_NS = 1e6;      // a frame to the clock arrives this long after its cause (an assumption)
const SDPCM_HEADER_LEN = 12, BDC_HEADER_LEN = 4, BDC_VERSION_2 = 0x20;
const CREDIT_WINDOW = 8;         // packets the host may send ahead of the firmware's buffers
const CONTROL_CHANNEL = 0, EVENT_CHANNEL = 1, DATA_CHANNEL = 2;
const ETH_MAX = 1514;            // an Ethernet frame without its FCS

const hex = (v, n = 8) => (v >>> 0).toString(16).padStart(n, '0');
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');

// The blobs the driver embeds, from its sources: the combined Wi-Fi (+BT)
// firmware header (C array, CYW43_WIFI_FW_LEN, CYW43_CLM_LEN) and the NVRAM
// header (C string literals).
function loadFirmwareHeader(file) {
  const text = fs.readFileSync(file, 'utf8');
  const open = text.indexOf('{');
  const body = text.slice(open, text.indexOf('};', open));
  const bytes = Buffer.from(Array.from(body.matchAll(/0x([0-9a-fA-F]{2})/g), (m) => parseInt(m[1], 16)));
  const fwLen = Number(/#define CYW43_WIFI_FW_LEN \((\d+)\)/.exec(text)[1]);
  const clmLen = Number(/#define CYW43_CLM_LEN \((\d+)\)/.exec(text)[1]);
  const clmAt = (fwLen + 511) & ~511;
  return { fw: bytes.subarray(0, fwLen), clm: bytes.subarray(clmAt, clmAt + clmLen), file };
}

function loadNvramHeader(file) {
  const text = fs.readFileSync(file, 'utf8');
  const body = text.slice(text.indexOf('='), text.indexOf(';', text.indexOf('=')));
  const out = [];
  for (const m of body.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    const s = m[1];
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '\\') {
        const c = s[++i];
        if (c === 'x') { out.push(parseInt(s.substr(i + 1, 2), 16)); i += 2; }
        else if (c === 'n') out.push(10);
        else out.push(c.charCodeAt(0));
      } else out.push(s.charCodeAt(i));
    }
  }
  out.push(0);                   // sizeof(a string literal) counts its NUL
  return Buffer.from(out);
}

class Cyw43 {
  constructor(mcu, { out, fwHeader, nvramHeader, trace, apSsid, apPass, relay }) {
    this.mcu = mcu;
    // the simulated access point: null ssid = none in range
    // (gone: switched off for now, AP DOWN)
    this.ap = { ssid: apSsid || null, pass: apPass || '', gone: false,
      bssid: Uint8Array.from([0x02, 0x00, 0x5e, 0x10, 0x00, 0x01]) };
    this.out = out;
    this.trace = !!trace;
    this.ref = fwHeader ? loadFirmwareHeader(fwHeader) : null;
    this.refNvram = nvramHeader ? loadNvramHeader(nvramHeader) : null;
    this.stats = { cyw43_xfers: 0, cyw43_unsupported: 0, cyw43_fw_bytes: 0, cyw43_ioctls: 0,
      cyw43_frames_to_host: 0, cyw43_frames_from_host: 0, cyw43_f2_reads: 0, cyw43_credit_updates: 0,
      cyw43_frames_unassociated: 0, cyw43_ap_downs: 0 };
    Object.defineProperty(this.stats, 'cyw43_rx_waiting', { enumerable: true, get: () => this.rx.length });
    Object.defineProperty(this.stats, 'cyw43_host_wake', { enumerable: true, get: () => (this.on && this.irqPending() ? 1 : 0) });
    this.timers = [];             // {at (ns), run}: the network's work due, in time order
    // the network behind the AP (target/netpeer.js); its stats are reported with the chip's
    this.peer = this.ap.ssid === null ? null : new NetPeer(this, { gatewayMac: this.ap.bssid, relay: relay || {} });
    if (this.peer) Object.assign(this.stats, this.peer.stats), this.peer.stats = this.stats;
    this.steps = [];
    this.powerOff();
    this.selected = false;
  }
  log(line) { this.out('W ' + Math.round(this.mcu.clock.nanos / 1e3) + ' ' + line); }
  step(name, detail) {
    if (!this.steps.includes(name)) this.steps.push(name);
    this.log('STEP ' + name + (detail ? ' ' + detail : ''));
  }
  unsupported(what) {
    this.stats.cyw43_unsupported += 1;
    this.log('UNSUPPORTED ' + what);
  }
  now() { return this.mcu.clock.nanos; }

  // -- power ------------------------------------------------------------------
  powerOff() {
    this.on = false;
    this.f0 = new Uint8Array(0x20);
    this.f0[F1_INFO] = 0x01 | 0x02 | (64 << 2) & 0xff; this.f0[F1_INFO + 1] = (64 << 2) >> 8;
    this.word32 = false;
    this.window = 0;
    this.clockCsr = 0;
    this.sdioRegs = { [F1_WATERMARK]: 0, [PULL_UP]: 0, [WAKEUP_CTRL]: 0, [SLEEP_CSR]: 0, [FRAME_CONTROL]: 0 };
    this.ram = new Uint8Array(RAM_SIZE);
    this.ramWritten = new Uint8Array(RAM_SIZE / 4);   // words written (coverage)
    this.cores = { arm: { ioctrl: 0, reset: 1 }, socram: { ioctrl: 0, reset: 1 } };
    this.bpRegs = new Map();
    this.fwState = null;          // {fw, nvram} verdicts once the ARM leaves reset
    this.htAt = Infinity;
    this.rx = [];                 // F2 packets waiting for the host
    this.hostSeq = 0;
    this.credit = 1;              // the bus data credit the host last read (cyw43_ll_init: 1)
    this.clm = null;              // CLM download in progress
    // the control channel's state: the MAC the firmware reads from the NVRAM's
    // macaddr= when the OTP has none (the driver then sets its own)
    this.mac = Uint8Array.from([0x00, 0xa0, 0x50, 0xb5, 0x59, 0x5e]);
    this.vars = {};
    this.ioctls = {};
    this.country = null;
    this.eventMask = null;
    this.mcast = new Uint8Array(4);
    this.pmk = null;              // the passphrase the driver gave (WLC_SET_WSEC_PMK)
    this.associated = false;      // joined the AP, keyed: data frames pass
    this.joinIface = 0;           // the interface of the last join (its events')
    this.events = [];             // {at (ns), pkt}: events due to the host
  }
  setPower(high) {
    if (high && !this.on) { this.powerOff(); this.on = true; this.step('wl_on'); }
    else if (!high && this.on) { this.powerOff(); this.log('WL_ON low: chip reset'); }
  }

  // -- the pins -----------------------------------------------------------------
  setCs(low) {
    if (low === this.selected) return;
    this.selected = low;
    if (low) { this.n = 0; this.w = 0; this.cmd = null; this.resp = null; this.wbits = []; return; }
    this.endTransaction();
    this.driveIrq();
  }
  driveIrq() {
    if (this.selected) return;    // DATA is the bus's in a transaction: HOST_WAKE again at its end (setCs)
    const irq = this.on && this.irqPending();
    this.mcu.gpio[PIN_DATA].setInputValue(irq);
  }
  clockRise() {
    if (!this.selected) return;
    const n = this.n++;
    if (n < 32) {
      const bit = this.mcu.gpio[PIN_DATA].outputValue ? 1 : 0;
      this.w = ((this.w << 1) | bit) >>> 0;
      if (n === 31) this.command();
      return;
    }
    if (!this.cmd) return;
    if (this.cmd.write) {
      this.wbits.push(this.mcu.gpio[PIN_DATA].outputValue ? 1 : 0);
      return;
    }
    const k = n - 32;
    const r = this.resp;
    const byte = r && (k >> 3) < r.length ? r[k >> 3] : 0;
    if (!r || (k >> 3) >= r.length) this.overrun = (this.overrun || 0) + 1;
    this.mcu.gpio[PIN_DATA].setInputValue(!!((byte >> (7 - (k & 7))) & 1));
  }

  // -- gSPI framing ---------------------------------------------------------------
  // wire bytes <-> little-endian values: 16-bit mode swaps each byte pair
  unwire(bytes) {
    if (this.word32) return bytes;
    const b = Uint8Array.from(bytes);
    for (let i = 0; i + 1 < b.length; i += 2) { const t = b[i]; b[i] = b[i + 1]; b[i + 1] = t; }
    return b;
  }
  command() {
    const w = this.w;
    const cmd = this.word32
      ? (((w & 0xff) << 24) | ((w & 0xff00) << 8) | ((w >>> 8) & 0xff00) | (w >>> 24)) >>> 0
      : (((w & 0xffff) << 16) | (w >>> 16)) >>> 0;
    const c = { raw: cmd, write: !!(cmd >>> 31), inc: !!((cmd >>> 30) & 1), fn: (cmd >>> 28) & 3,
      addr: (cmd >>> 11) & 0x1ffff, len: (cmd & 0x7ff) || 2048 };
    this.cmd = c;
    this.stats.cyw43_xfers += 1;
    if (!this.on) { this.unsupported('bus access with WL_ON low: cmd ' + hex(cmd)); this.cmd = null; return; }
    if (c.fn === 3) { this.unsupported('function 3 cmd ' + hex(cmd)); return; }
    if (!c.write) {
      const data = this.read(c);
      const pad = c.fn === 0 ? this.f0[RESP_DELAY_F0] : c.fn === 1 ? this.f0[RESP_DELAY_F0 + 1] : this.f0[RESP_DELAY_F0 + 2];
      const body = this.unwire(data);
      const r = new Uint8Array(pad + body.length);
      r.set(body, pad);
      this.resp = r;
      this.overrun = 0;
    }
  }
  endTransaction() {
    const c = this.cmd;
    if (!c) {
      if (this.n > 0 && this.n < 32) this.unsupported('transaction of ' + this.n + ' clocks (no command)');
      return;
    }
    if (c.write) {
      const nbytes = this.wbits.length >> 3;
      const bytes = new Uint8Array(nbytes);
      for (let i = 0; i < nbytes * 8; i++) bytes[i >> 3] |= this.wbits[i] << (7 - (i & 7));
      if (nbytes < c.len) { this.unsupported('short write: ' + nbytes + ' of ' + c.len + ' bytes, cmd ' + hex(c.raw)); return; }
      this.write(c, this.unwire(bytes).subarray(0, c.len));
    }
    this.cmd = null;
  }
  traceAccess(c, data) {
    if (!this.trace) return;
    const v = data.length <= 4 ? Array.from(data).reverse().map((x) => hex(x, 2)).join('') : data.length + 'B';
    this.log('TRACE ' + (c.write ? 'W' : 'R') + ' f' + c.fn + ' ' + hex(c.addr, 5) + ' ' + c.len + ' ' + v);
  }

  // -- reads ----------------------------------------------------------------------
  read(c) {
    const n = (c.len + 3) & ~3;
    const data = new Uint8Array(n);
    if (c.fn === 0) {
      let bad = -1;
      for (let i = 0; i < c.len; i++) {
        const v = this.f0Read(c.addr + i);
        if (v === null) { if (bad < 0) bad = c.addr + i; } else data[i] = v;
      }
      if (bad >= 0) this.unsupported('F0 read of register ' + hex(bad, 4) + ' (cmd ' + hex(c.raw) + ', ' + c.len + ' bytes from ' + hex(c.addr, 4) + ')');
      if (c.addr === TEST_RO && c.len === 4 && !this.steps.includes('test_pattern')) this.step('test_pattern', 'mode=' + (this.word32 ? 32 : 16));
      if (c.addr === STATUS_REG && (this.status() & STATUS_F2_RX_READY) && !this.steps.includes('f2_ready')) this.step('f2_ready');
    } else if (c.fn === 1) {
      if (c.addr >= 0x10000) for (let i = 0; i < c.len; i++) data[i] = this.sdioRead(c.addr + i);
      else this.bpRead(c.addr, c.len, data);
    } else if (c.fn === 2) {
      const p = this.rx.shift();
      if (p) {
        this.stats.cyw43_f2_reads += 1;
        p[9] = this.credit = (this.hostSeq + CREDIT_WINDOW) & 0xff;   // as of this read
      }
      if (!p) this.unsupported('F2 read of ' + c.len + ' bytes with no packet pending');
      else data.set(p.subarray(0, Math.min(p.length, n)));
    }
    this.traceAccess(c, data.subarray(0, c.len));
    return data;
  }
  status() {
    let s = 0;
    if (this.firmwareUp()) s |= STATUS_F2_RX_READY;
    if (this.rx.length) s |= STATUS_F2_PKT_AVAILABLE | ((this.rx[0].length & 0x7ff) << 9);
    return s >>> 0;
  }
  f0Read(a) {
    if (a >= STATUS_REG && a < STATUS_REG + 4) return (this.status() >>> (8 * (a - STATUS_REG))) & 0xff;
    if (a >= TEST_RO && a < TEST_RO + 4) return (TEST_PATTERN >>> (8 * (a - TEST_RO))) & 0xff;
    if (a === INT_REG) return this.intBits() & 0xff;
    if (a === INT_REG + 1) return this.intBits() >> 8;
    if (a === F2_INFO) return this.firmwareUp() ? 0x03 | ((2048 << 2) & 0xfc) : 0;
    if (a === F2_INFO + 1) return this.firmwareUp() ? (2048 << 2) >> 8 & 0xff : 0;
    if (a < 0x20 && a !== 0x12 && a !== 0x13) return this.f0[a];
    return null;
  }
  intBits() {
    return (this.f0[INT_REG] | (this.f0[INT_REG + 1] << 8)) | (this.rx.length ? F2_PACKET_AVAILABLE : 0);
  }
  irqPending() {
    const en = this.f0[INT_ENABLE] | (this.f0[INT_ENABLE + 1] << 8);
    return !!(this.intBits() & en);
  }
  firmwareUp() {
    return this.fwState !== null && this.fwState.ok && this.now() >= this.htAt;
  }
  sdioRead(a) {
    if (a === CLOCK_CSR) {
      let v = this.clockCsr & 0x3f;
      if (this.clockCsr & (ALP_AVAIL_REQ | FORCE_ALP) || this.firmwareUp()) v |= ALP_AVAIL;
      if (this.firmwareUp()) v |= HT_AVAIL;
      if ((v & ALP_AVAIL) && !this.steps.includes('alp_avail')) this.step('alp_avail');
      if ((v & HT_AVAIL) && !this.steps.includes('ht_avail')) this.step('ht_avail');
      return v;
    }
    if (a === SLEEP_CSR) return this.sdioRegs[SLEEP_CSR] & KSO ? KSO | DEVICE_ON : 0;
    if (a === BP_LOW) return (this.window >>> 8) & 0xff;
    if (a === BP_MID) return (this.window >>> 16) & 0xff;
    if (a === BP_HIGH) return this.window >>> 24;
    if (a in this.sdioRegs) return this.sdioRegs[a];
    this.unsupported('F1 read of SDIO register ' + hex(a, 5));
    return 0;
  }
  bpAddr(addr) { return ((this.window & ~0x7fff) | (addr & 0x7fff)) >>> 0; }
  bpRead(addr, len, data) {
    const a = this.bpAddr(addr);
    if (a + len <= RAM_SIZE) { data.set(this.ram.subarray(a, a + len)); return; }
    const core = this.coreReg(a);
    if (core) { data[0] = core.core[core.reg]; return; }
    if (a in BP_REGS) { const v = this.bpRegs.get(a) || 0; for (let i = 0; i < 4; i++) data[i] = (v >>> (8 * i)) & 0xff; return; }
    this.unsupported('backplane read ' + hex(a) + ' len ' + len);
  }
  coreReg(a) {
    for (const [base, name] of [[ARM_WRAP, 'arm'], [SOCRAM_WRAP, 'socram']]) {
      if (a === base + IOCTRL) return { core: this.cores[name], reg: 'ioctrl', name };
      if (a === base + RESETCTRL) return { core: this.cores[name], reg: 'reset', name };
    }
    return null;
  }

  // -- writes ---------------------------------------------------------------------
  write(c, data) {
    this.traceAccess(c, data);
    const v = data.length <= 4 ? data.reduceRight((acc, b) => acc * 256 + b, 0) >>> 0 : 0;
    if (c.fn === 0) return this.f0Write(c.addr, data, v);
    if (c.fn === 1) {
      if (c.addr >= 0x10000) { for (let i = 0; i < data.length; i++) this.sdioWrite(c.addr + i, data[i]); return; }
      return this.bpWrite(c.addr, data, v);
    }
    if (c.fn === 2) return this.f2Write(data);
  }
  f0Write(a, data, v) {
    for (let i = 0; i < data.length; i++) {
      const r = a + i, b = data[i];
      if (r === INT_REG || r === INT_REG + 1) this.f0[r] &= ~b;                 // write 1 to clear
      else if (r === BUS_CONTROL) {
        this.f0[r] = b;
        const was = this.word32;
        this.word32 = !!(b & WORD_LENGTH_32);
        if (this.word32 && !was) this.step('bus_config', 'ctrl=' + hex(v));
      } else if ((r >= 1 && r <= 3) || r === INT_ENABLE || r === INT_ENABLE + 1 ||
                 (r >= TEST_RW && r < TEST_RW + 4) || (r >= RESP_DELAY_F0 && r < 0x20)) this.f0[r] = b;
      else this.unsupported('F0 write of register ' + hex(r, 4) + ' = ' + hex(b, 2));
    }
    if (a === RESP_DELAY_F0 + 1) this.step('resp_delay_f1', String(this.f0[a]));
    if (a === INT_ENABLE) this.step('int_enable', hex(v, 4));
  }
  sdioWrite(a, b) {
    if (a === BP_LOW) this.window = ((this.window & ~0xff00) | (b << 8)) >>> 0;
    else if (a === BP_MID) this.window = ((this.window & ~0xff0000) | (b << 16)) >>> 0;
    else if (a === BP_HIGH) this.window = ((this.window & 0x00ffffff) | (b << 24)) >>> 0;
    else if (a === CLOCK_CSR) {
      this.clockCsr = b;
      if (b & ALP_AVAIL_REQ) this.step('alp_req');
      if (b & (HT_AVAIL_REQ | FORCE_HT)) this.step('ht_req');
    } else if (a === FRAME_CONTROL) { this.sdioRegs[a] = b; if (b & 1) { this.log('frame terminated by host'); this.rx.shift(); } }
    else if (a in this.sdioRegs) this.sdioRegs[a] = b;
    else this.unsupported('F1 write of SDIO register ' + hex(a, 5) + ' = ' + hex(b, 2));
  }
  bpWrite(addr, data, v) {
    const a = this.bpAddr(addr);
    if (a + data.length <= RAM_SIZE) {
      this.ram.set(data, a);
      for (let i = a >> 2; i < (a + data.length + 3) >> 2; i++) this.ramWritten[i] = 1;
      this.stats.cyw43_fw_bytes += data.length;
      if (!this.steps.includes('upload')) this.step('upload', 'first block at ' + hex(a));
      return;
    }
    const core = this.coreReg(a);
    if (core) {
      const was = core.core[core.reg];
      core.core[core.reg] = data[0];
      if (core.name === 'arm' && core.reg === 'reset' && was && !data[0]) this.armReleased();
      return;
    }
    if (a in BP_REGS) { this.bpRegs.set(a, v); return; }
    this.unsupported('backplane write ' + hex(a) + ' len ' + data.length + (data.length <= 4 ? ' = ' + hex(v) : ''));
  }

  // -- the firmware boot ------------------------------------------------------------
  armReleased() {
    const fw = this.checkFirmware(), nv = this.checkNvram();
    const clockOk = (this.cores.arm.ioctrl & 0x03) === 0x01;
    this.fwState = { ok: fw && nv, fw, nv };
    this.step('arm_released', 'firmware=' + (fw ? 'ok' : 'BAD') + ' nvram=' + (nv ? 'ok' : 'BAD') +
      (clockOk ? '' : ' (ioctrl ' + hex(this.cores.arm.ioctrl, 2) + ')'));
    if (this.fwState.ok) this.htAt = this.now() + HT_BOOT_NS;
    else this.log('the firmware does not boot: HT clock and F2 stay off');
  }
  extentFrom0() {           // bytes written contiguously from address 0
    let i = 0;
    while (i < this.ramWritten.length && this.ramWritten[i]) i++;
    return i * 4;
  }
  checkFirmware() {
    const got = this.extentFrom0();
    if (!this.ref) {
      this.log('FW len=' + got + ' (no reference blob given: length and checksum not checked)');
      return got > 0;
    }
    const want = this.ref.fw.length, wantPad = (want + 3) & ~3;
    const okLen = got === wantPad;
    const okSum = sha(this.ram.subarray(0, want)) === sha(this.ref.fw);
    this.log('FW len=' + got + ' expected=' + wantPad + ' sha256=' + (okSum ? 'match' : 'MISMATCH') +
      ' ' + sha(this.ram.subarray(0, want)).slice(0, 16));
    return okLen && okSum;
  }
  checkNvram() {
    const t = RAM_SIZE - 4;
    const word = (this.ram[t] | (this.ram[t + 1] << 8) | (this.ram[t + 2] << 16) | (this.ram[t + 3] << 24)) >>> 0;
    const words = word & 0xffff;
    if (((~words) & 0xffff) !== word >>> 16 || !words) {
      this.log('NVRAM trailer ' + hex(word) + ' is not (~n << 16 | n): no NVRAM');
      return false;
    }
    const len = words * 4, at = t - len;
    const got = this.ram.subarray(at, t);
    if (!this.refNvram) { this.log('NVRAM len=' + len + ' at ' + hex(at) + ' (no reference given)'); return true; }
    const want = this.refNvram, wantPad = (want.length + 3) & ~3;
    const okSum = sha(got.subarray(0, want.length)) === sha(want);
    this.log('NVRAM len=' + len + ' expected=' + wantPad + ' at ' + hex(at) + ' sha256=' + (okSum ? 'match' : 'MISMATCH'));
    return len === wantPad && okSum;
  }

  // -- SDPCM (F2) ---------------------------------------------------------------------
  f2Write(data) {
    this.f2Take(data);
    if (this.firmwareUp()) this.creditUpdate();
  }
  f2Take(data) {
    if (!this.firmwareUp()) { this.unsupported('F2 write of ' + data.length + ' bytes before the firmware runs'); return; }
    const le16 = (o) => data[o] | (data[o + 1] << 8), le32 = (o) => (data[o] | (data[o + 1] << 8) | (data[o + 2] << 16) | (data[o + 3] << 24)) >>> 0;
    const size = le16(0);
    if ((le16(2) ^ size) !== 0xffff || size < 12 || size > data.length) { this.unsupported('F2 packet with a bad SDPCM header ' + hex(le32(0))); return; }
    const seq = data[4], chan = data[5] & 0x0f, hlen = data[7];
    this.hostSeq = seq;
    if (chan === DATA_CHANNEL && size >= hlen + BDC_HEADER_LEN + 14) {
      // cyw43_ll_send_ethernet: SDPCM header (header_length 14: 2 bytes of
      // padding), BDC header (flags2 = interface, data_offset words), the frame
      const f = data.subarray(hlen + BDC_HEADER_LEN + (data[hlen + 3] << 2), size);
      const mac = (o) => Array.from(f.subarray(o, o + 6), (b) => hex(b, 2)).join(':');
      const what = 'data frame of ' + size + ' bytes ' + mac(6) + ' > ' + mac(0) + ' type ' + hex((f[12] << 8) | f[13], 4) +
        ((f[12] << 8 | f[13]) === 0x0800 && f[23] === 17 ? ' udp ' + ((f[34] << 8) | f[35]) + ' > ' + ((f[36] << 8) | f[37]) : '');
      if (this.peer && !this.associated && (this.ap.gone || this.stats.cyw43_ap_downs)) {
        // (a station whose AP left: the chip has no one to send it to)
        this.stats.cyw43_frames_unassociated += 1;
        this.log('DROP ' + what + ' from the clock (not associated: ' + (this.ap.gone ? 'the AP is gone' : 'not joined again yet') + ')');
        return;
      }
      if (!this.peer || !this.associated) { this.unsupported(what + ' (not associated: no network)'); return; }
      this.stats.cyw43_frames_from_host += 1;
      this.peer.fromClock(Uint8Array.from(f));
      return;
    }
    if (chan !== CONTROL_CHANNEL) { this.unsupported('SDPCM channel ' + chan + ' packet of ' + size + ' bytes'); return; }
    const cmd = le32(hlen), len = le32(hlen + 4) & 0xffff, flags = le32(hlen + 8);
    const payload = data.subarray(hlen + 16, Math.min(size, hlen + 16 + len));
    this.ioctl(cmd, flags, payload);
  }
  // The firmware frees each packet's buffer as soon as it has taken it, and
  // the host learns the new credit from the next F2 packet's header.  With
  // none queued to carry it and the host's credit short (under half the
  // window left: it stalls at none, cyw43_sdpcm_send_common 651), the
  // firmware sends a header-only packet, the driver's "flow control packet
  // with no data" (sdpcm_process_rx_packet: the credit taken, nothing else).
  creditUpdate() {
    const left = (this.credit - ((this.hostSeq + 1) & 0xff)) & 0xff;
    if (this.rx.length || left >= CREDIT_WINDOW / 2) return;
    const p = new Uint8Array(SDPCM_HEADER_LEN);
    p[0] = SDPCM_HEADER_LEN; p[2] = ~SDPCM_HEADER_LEN & 0xff; p[3] = 0xff;
    p[4] = this.rxSeq = ((this.rxSeq || 0) + 1) & 0xff;
    p[5] = CONTROL_CHANNEL; p[7] = SDPCM_HEADER_LEN;
    this.stats.cyw43_credit_updates += 1;
    this.rx.push(p);
    this.driveIrq();
  }
  ioctl(cmd, flags, payload) {
    this.stats.cyw43_ioctls += 1;
    const set = !!(flags & 2), iface = (flags >> 12) & 0xf;
    const nul = payload.indexOf(0);
    const name = (cmd === WLC_GET_VAR || cmd === WLC_SET_VAR) && nul > 0 ? Buffer.from(payload.subarray(0, nul)).toString('latin1') : null;
    const arg = name !== null ? payload.subarray(nul + 1) : payload;
    let reply = Uint8Array.from(payload), status = 0, what = null;
    const u32 = (b) => (b.length >= 4 ? (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0 : null);
    const answer = (bytes) => { reply = new Uint8Array(Math.max(payload.length, bytes.length)); reply.set(bytes); };
    if (cmd === WLC_SET_VAR && name === 'clmload') what = this.clmChunk(arg);
    else if (cmd === WLC_GET_VAR && name === 'clmload_status') {
      const ok = this.clm && this.clm.done && this.clm.ok;
      answer([ok ? 0 : 1, 0, 0, 0]);
      what = ok ? 'CLM loaded' : 'CLM not loaded';
    } else if (cmd === WLC_SET_VAR && U32_VARS.has(name) && u32(arg) !== null) {
      this.vars[name] = u32(arg);
      what = name + '=' + u32(arg);
    } else if (cmd === WLC_GET_VAR && U32_VARS.has(name) && name in this.vars) {
      const v = this.vars[name];
      answer([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24]);
      what = name + ' is ' + v;
    } else if (cmd === WLC_SET_VAR && name === 'country' && arg.length >= 12) {
      this.country = Buffer.from(arg.subarray(0, 2)).toString('latin1');
      what = 'country ' + this.country + ' rev ' + (u32(arg.subarray(4)) | 0);
    } else if (cmd === WLC_SET_VAR && name === 'bsscfg:event_msgs' && arg.length >= 4) {
      this.eventMask = Uint8Array.from(arg.subarray(4));
      what = 'bsscfg ' + u32(arg) + ' event mask ' + Buffer.from(this.eventMask).toString('hex');
    } else if (name === 'cur_etheraddr') {
      if (cmd === WLC_SET_VAR && arg.length >= 6) this.mac = Uint8Array.from(arg.subarray(0, 6));
      if (cmd === WLC_GET_VAR) answer(this.mac);
      what = 'mac ' + Array.from(this.mac, (b) => hex(b, 2)).join(':');
    } else if (name === 'mcast_list') {
      if (cmd === WLC_SET_VAR) this.mcast = Uint8Array.from(arg.subarray(0, 4 + 6 * Math.min(10, u32(arg) || 0)));
      if (cmd === WLC_GET_VAR) answer(this.mcast);
      what = (u32(this.mcast) || 0) + ' multicast addresses';
    } else if (set && name === null && cmd in U32_IOCTLS && (u32(payload) !== null || cmd === WLC_UP)) {
      this.ioctls[cmd] = u32(payload);
      what = U32_IOCTLS[cmd] + (cmd === WLC_UP ? '' : '=' + u32(payload));
      if (cmd === WLC_UP) this.step('wlc_up');
    } else if (cmd === WLC_SET_VAR && JOIN_VARS.has(name) && u32(arg) !== null) {
      this.vars[name] = u32(arg);
      what = name + '=' + u32(arg);
    } else if (cmd === WLC_SET_VAR && BSSCFG_VARS.has(name) && arg.length >= 8) {
      this.vars[name] = u32(arg.subarray(4)) | 0;
      what = 'bsscfg ' + u32(arg) + ' ' + name.slice(7) + '=' + this.vars[name];
    } else if (set && cmd === WLC_SET_WSEC_PMK && payload.length >= 68) {
      const klen = payload[0] | (payload[1] << 8), kflags = payload[2] | (payload[3] << 8);
      if (klen <= 64) {
        this.pmk = Buffer.from(payload.subarray(4, 4 + klen)).toString('latin1');
        what = 'WLC_SET_WSEC_PMK key_len=' + klen + ' flags=' + kflags + (kflags & 1 ? ' (passphrase)' : '');
      }
    } else if (set && cmd === WLC_SET_SSID && payload.length >= 36 && u32(payload) <= 32) {
      const ssid = Buffer.from(payload.subarray(4, 4 + u32(payload))).toString('latin1');
      what = 'WLC_SET_SSID "' + ssid + '"';
      this.queueControl(cmd, flags, 0, reply);
      this.log('IOCTL SET ' + cmd + ': ' + what);
      this.join(ssid, iface);
      return;
    }
    if (what === null) {
      status = BCME_UNSUPPORTED;
      this.unsupported('ioctl ' + (set ? 'SET' : 'GET') + ' cmd ' + cmd + (name !== null ? ' "' + name + '"' : '') + ' len ' + payload.length + ' iface ' + iface);
    } else this.log('IOCTL ' + (set ? 'SET' : 'GET') + ' ' + (name || cmd) + ': ' + what);
    this.queueControl(cmd, flags | (status ? 1 : 0), status, reply);
  }
  // -- the simulated access point -------------------------------------------------------
  // What a real join gives (the driver's reading: cyw43_ctrl.c
  // cyw43_cb_process_async_event 373-427): the AP in range and the passphrase
  // right: AUTH 0, LINK up, PSK_SUP KEYED, SET_SSID 0 (join state ALL:
  // link up).  Wrong passphrase: authenticated and associated (AUTH, LINK),
  // then the 4-way handshake fails: PSK_SUP with the supplicant's failure
  // status (-> BADAUTH, WLAN.status() -3) and the AP's deauth (DEAUTH_IND
  // reason 2).  No AP of
  // that SSID: SET_SSID NO_NETWORKS (3, reason 0 -> NONET).
  join(ssid, iface) {
    const wpa = (this.ioctls[134] || 0) !== 0;
    const ev = [];
    this.joinIface = iface;
    if (this.ap.ssid === null || ssid !== this.ap.ssid || this.ap.gone) {
      this.step('join', 'ssid "' + ssid + '": no such network' + (this.ap.gone ? ' (the AP is gone)' : ''));
      ev.push([EV.SET_SSID, WLC_E_STATUS_NO_NETWORKS, 0, 0]);
    } else if (wpa && this.pmk !== this.ap.pass) {
      this.step('join', 'ssid "' + ssid + '": wrong passphrase');
      ev.push([EV.AUTH, 0, 0, 0], [EV.LINK, 0, 0, 1],
        [EV.PSK_SUP, WLC_SUP_KEYXCHANGE_WAIT_M3, WLC_E_SUP_DEAUTH, 0],
        [EV.DEAUTH_IND, 0, DOT11_RC_NOT_AUTH, 0]);
      // (no SET_SSID failure after them: it would turn the driver's join
      // state from BADAUTH into FAIL, cyw43_ctrl.c 379-381, where a real
      // Pico W refused by its AP reports STAT_WRONG_PASSWORD)
    } else {
      this.step('join', 'ssid "' + ssid + '": associated' + (wpa ? ', keyed' : ''));
      this.associated = true;
      ev.push([EV.AUTH, 0, 0, 0], [EV.LINK, 0, 0, 1]);
      if (wpa) ev.push([EV.PSK_SUP, WLC_SUP_KEYED, 0, 0]);
      ev.push([EV.SET_SSID, 0, 0, 0]);
    }
    let at = this.now();
    for (const [type, status, reason, fl] of ev) {
      at += JOIN_EVENT_GAP_NS;
      this.events.push({ at, type, status, reason, flags: fl, iface });
    }
  }
  // AP DOWN: the access point switched off (this file's header): an
  // associated station gets DEAUTH_IND (reason 3) and LINK down
  apDown() {
    if (this.ap.ssid === null) { this.unsupported('AP DOWN without an access point (--ap-ssid)'); return; }
    if (this.ap.gone) { this.log('FAULT AP DOWN: the AP is already gone'); return; }
    this.ap.gone = true;
    this.stats.cyw43_ap_downs += 1;
    const was = this.associated;
    this.associated = false;
    this.log('FAULT AP DOWN: the access point "' + this.ap.ssid + '" is gone' +
      (was ? ': DEAUTH_IND (leaving) and LINK down to the station' : ' (no station associated)'));
    if (!was) return;
    let at = this.now();
    for (const [type, status, reason, fl] of [[EV.DEAUTH_IND, 0, DOT11_RC_DEAUTH_LEAVING, 0],
      [EV.LINK, 0, WLC_E_LINK_DISASSOC, 0]]) {
      at += JOIN_EVENT_GAP_NS;
      this.events.push({ at, type, status, reason, flags: fl, iface: this.joinIface });
    }
  }
  // AP UP: the access point back; the station must join again
  apUp() {
    if (this.ap.ssid === null) { this.unsupported('AP UP without an access point (--ap-ssid)'); return; }
    if (!this.ap.gone) { this.log('FAULT AP UP: the AP is already up'); return; }
    this.ap.gone = false;
    this.log('FAULT AP UP: the access point "' + this.ap.ssid + '" is back (a station must join again)');
  }
  // the network's work at simulated time `at` (ns): a frame, a timer; the handle cancels it
  later(at, run) {
    const t = { at, run };
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1].at > at) i--;
    this.timers.splice(i, 0, t);
    return t;
  }
  cancel(t) { const i = this.timers.indexOf(t); if (i >= 0) this.timers.splice(i, 1); }
  nextDueNs() {
    return Math.min(this.events.length ? this.events[0].at : Infinity, this.timers.length ? this.timers[0].at : Infinity);
  }
  // an Ethernet frame from the network to the clock, NET_LATENCY_NS from now:
  // SDPCM (channel 2) + BDC + the frame, as sdpcm_process_rx_packet's DATA_HEADER reads it
  sendFrame(frame) {
    if (frame.length > ETH_MAX) { this.unsupported('a frame of ' + frame.length + ' bytes to the clock (over ' + ETH_MAX + ')'); return; }
    this.later(this.now() + NET_LATENCY_NS, () => {
      if (!this.associated && (this.ap.gone || this.stats.cyw43_ap_downs)) {
        this.stats.cyw43_frames_unassociated += 1;
        this.log('DROP a frame of ' + frame.length + ' bytes to the clock (not associated)');
        return;
      }
      const size = SDPCM_HEADER_LEN + BDC_HEADER_LEN + frame.length;
      const p = new Uint8Array((size + 3) & ~3);
      p[0] = size & 0xff; p[1] = size >> 8; p[2] = ~size & 0xff; p[3] = (~size >> 8) & 0xff;
      p[4] = this.rxSeq = ((this.rxSeq || 0) + 1) & 0xff;
      p[5] = DATA_CHANNEL; p[7] = SDPCM_HEADER_LEN;   // (the credit: stamped when read)
      p[12] = BDC_VERSION_2; p[14] = 0; p[15] = 0;           // priority 0, interface 0 (STA), no data offset
      p.set(frame, SDPCM_HEADER_LEN + BDC_HEADER_LEN);
      this.stats.cyw43_frames_to_host += 1;
      this.rx.push(p);
      this.driveIrq();
    });
  }
  // called as simulated time passes: due events into the F2 queue, due network work done
  pollEvents() {
    while (this.timers.length && this.timers[0].at <= this.now()) this.timers.shift().run();
    while (this.events.length && this.events[0].at <= this.now()) {
      const e = this.events.shift();
      const masked = this.eventMask && !((this.eventMask[e.type >> 3] >> (e.type & 7)) & 1);
      if (masked) { this.log('EVENT ' + e.type + ' masked off by the host: not sent'); continue; }
      this.log('EVENT type=' + e.type + ' status=' + e.status + ' reason=' + e.reason + ' flags=' + e.flags + ' iface=' + e.iface);
      this.queueEvent(e);
      this.driveIrq();
    }
  }
  queueEvent(e) {
    // SDPCM (12, channel 1) + BDC (4) + Ethernet (14, type 0x886c) +
    // bcmeth_hdr (10: subtype 0x8001, length, version, OUI 00:10:18, usr
    // subtype 1) + wl_event_msg_t (48, big-endian), as cyw43_ll.c 910-945 reads it
    const size = 12 + 4 + 14 + 10 + 48;
    const p = new Uint8Array((size + 3) & ~3);
    const be16 = (o, v) => { p[o] = (v >> 8) & 0xff; p[o + 1] = v & 0xff; };
    const be32 = (o, v) => { be16(o, (v >>> 16) & 0xffff); be16(o + 2, v & 0xffff); };
    p[0] = size & 0xff; p[1] = size >> 8; p[2] = ~size & 0xff; p[3] = (~size >> 8) & 0xff;
    p[4] = this.rxSeq = ((this.rxSeq || 0) + 1) & 0xff;
    p[5] = 1; p[7] = 12;   // (the credit: stamped when read)
    p[12] = 0x20; p[14] = e.iface; p[15] = 0;                // BDC v2, interface, no data offset
    const eth = 16;
    p.set(this.mac, eth); p.set(this.ap.bssid, eth + 6); be16(eth + 12, 0x886c);
    be16(eth + 14, 0x8001); be16(eth + 16, 10 + 48 - 4); p[eth + 18] = 0;
    p[eth + 19] = 0x00; p[eth + 20] = 0x10; p[eth + 21] = 0x18; be16(eth + 22, 1);
    const m = eth + 24;
    be16(m, 2); be16(m + 2, e.flags); be32(m + 4, e.type); be32(m + 8, e.status); be32(m + 12, e.reason);
    be32(m + 16, 0); be32(m + 20, 0); p.set(this.ap.bssid, m + 24);
    p.set(Buffer.from('wlan0'), m + 30); p[m + 46] = e.iface; p[m + 47] = 0;
    this.rx.push(p);
  }
  clmChunk(arg) {
    // the "clmload" iovar's argument: flag u16 (DL_BEGIN 2, DL_END 4), type u16, len u32, crc u32, data
    const flag = arg[0] | (arg[1] << 8), len = (arg[4] | (arg[5] << 8) | (arg[6] << 16) | (arg[7] << 24)) >>> 0;
    if (flag & 2) this.clm = { parts: [], done: false, ok: false };
    if (!this.clm) return null;
    this.clm.parts.push(Buffer.from(arg.subarray(12, 12 + len)));
    if (flag & 4) {
      const blob = Buffer.concat(this.clm.parts);
      this.clm.done = true;
      this.clm.ok = this.ref ? sha(blob) === sha(this.ref.clm) && blob.length === this.ref.clm.length : blob.length > 0;
      this.log('CLM len=' + blob.length + (this.ref ? ' expected=' + this.ref.clm.length + ' sha256=' + (this.clm.ok ? 'match' : 'MISMATCH') : ''));
      this.step('clm_loaded', this.clm.ok ? 'ok' : 'BAD');
    }
    return 'chunk of ' + len + ' bytes' + (flag & 2 ? ' (begin)' : '') + (flag & 4 ? ' (end)' : '');
  }
  queueControl(cmd, flags, status, data) {
    const size = 12 + 16 + data.length;
    const p = new Uint8Array((size + 3) & ~3);
    const put16 = (o, v) => { p[o] = v & 0xff; p[o + 1] = (v >> 8) & 0xff; };
    const put32 = (o, v) => { put16(o, v & 0xffff); put16(o + 2, (v >>> 16) & 0xffff); };
    put16(0, size); put16(2, ~size & 0xffff);
    p[4] = this.rxSeq = ((this.rxSeq || 0) + 1) & 0xff;
    p[5] = 0;                      // control channel
    p[7] = 12;                     // header length
    put32(12, cmd); put32(16, data.length); put32(20, flags); put32(24, status >>> 0);
    p.set(data, 28);
    this.rx.push(p);
  }
}

// The PIO blocks stepped in simulated time: `tick(cycles)` after each batch of
// core cycles.  A state machine stalled on a FIFO is resumed by rp2040js's
// FIFO access itself, so a PIO whose enabled machines all wait on a FIFO is
// not stepped (a wait on a pin or IRQ is).
function pioClock(mcu) {
  const blocks = mcu.pio.map((pio) => {
    pio.run = function () { /* stepped from tick() */ };
    return { pio, acc: 0 };
  });
  const FIFO_WAITS = new Set([2, 3, 5]);   // WaitType rxFIFO, txFIFO, Out
  function active(pio) {
    if (pio.stopped) return false;
    for (const m of pio.machines) if (m.enabled && !(m.waiting && FIFO_WAITS.has(m.waitType))) return true;
    return false;
  }
  return {
    active() { return blocks.some((b) => active(b.pio)); },
    tick(cycles) {
      for (const b of blocks) {
        if (!active(b.pio)) { b.acc = 0; continue; }
        let div = 1;
        for (const m of b.pio.machines) if (m.enabled) { div = Math.max(1, m.clockDivInt); break; }
        b.acc += cycles;
        while (b.acc >= div) {
          b.acc -= div;
          b.pio.step();
          if (!active(b.pio)) { b.acc = 0; break; }
        }
      }
    },
  };
}

function attach(mcu, opts) {
  const chip = new Cyw43(mcu, opts);
  const clock = pioClock(mcu);
  const Low = 0, High = 1;        // GPIOPinState: driven low / high (else an input)
  mcu.gpio[PIN_ON].addListener((v) => chip.setPower(v === High));
  mcu.gpio[PIN_CS].addListener((v) => chip.setCs(v === Low));
  let clk = false;
  mcu.gpio[PIN_CLK].addListener((v) => {
    const level = v === High;
    if (level && !clk) chip.clockRise();
    clk = level;
  });
  const tick = (cycles) => { clock.tick(cycles); if (chip.events.length || chip.timers.length) chip.pollEvents(); };
  return { chip, tick, pioActive: clock.active, stats: chip.stats, nextEventNs: () => chip.nextDueNs() };
}

module.exports = { attach, Cyw43, loadFirmwareHeader, loadNvramHeader, TEST_PATTERN };
