// tests/test_cyw43.py's host side of the gSPI wire: target/cyw43.js attached
// to a stand-in for the Pico's pins, and transactions clocked into it bit by
// bit as pico-sdk's PIO program clocks them (command and write data sampled on
// CLK's rising edge, MSB first; a read's bits launched by the chip on each
// rising edge after the command, the first on the turnaround edge, and sampled
// before the next).  Byte order on the wire, from the driver: a buffer goes out
// in memory order (DMA byte swap + MSB-first shift); 16-bit mode's values are
// the driver's SWAP32 (each 16-bit half's bytes swapped), 32-bit mode's are
// little-endian.
//
//   node tests/cyw43_wire.js SCENARIO FW_HEADER NVRAM_HEADER FW_BIN NVRAM_BIN [corrupt|short|trailer]
//
// prints one JSON object: what the scenario read, and the model's W lines.
'use strict';
const fs = require('fs');
const path = require('path');
const cyw43 = require(path.join(__dirname, '..', 'target', 'cyw43.js'));

const [scenario, fwH, nvH, fwBin, nvBin, variant] = process.argv.slice(2);
const log = [];
const pins = Array.from({ length: 30 }, () => ({
  listeners: [], outputValue: false, input: false,
  addListener(f) { this.listeners.push(f); },
  setInputValue(v) { this.input = !!v; },
}));
const mcu = { gpio: pins, pio: [], clock: { nanos: 0 } };
const { chip } = cyw43.attach(mcu, { out: (l) => log.push(l), fwHeader: fwH, nvramHeader: nvH });
const drive = (pin, v) => { for (const f of pins[pin].listeners) f(v ? 1 : 0); };
const advanceMs = (ms) => { mcu.clock.nanos += ms * 1e6; };

let mode32 = false;
const wire = (v) => (mode32 ? [v, v >>> 8, v >>> 16, v >>> 24] : [v >>> 8, v, v >>> 24, v >>> 16]).map((b) => b & 0xff);
const unwire = (b) => (mode32 ? (b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24) : (b[1] | b[0] << 8 | b[3] << 16 | b[2] << 24)) >>> 0;
const cmd = (write, fn, addr, len) => ((write ? 1 << 31 : 0) | 1 << 30 | fn << 28 | (addr & 0x1ffff) << 11 | len) >>> 0;

function xfer(tx, rxBytes, clocks) {
  drive(25, 0);
  let n = 0;
  for (const byte of tx) {
    for (let i = 7; i >= 0; i--) {
      if (clocks !== undefined && n++ >= clocks) { drive(25, 1); return []; }
      pins[24].outputValue = !!((byte >> i) & 1);
      drive(29, 0); drive(29, 1);
    }
  }
  const rx = [];
  for (let k = 0; k < rxBytes; k++) {
    let b = 0;
    for (let i = 0; i < 8; i++) { drive(29, 0); drive(29, 1); b = (b << 1) | (pins[24].input ? 1 : 0); }
    rx.push(b);
  }
  drive(29, 0);
  drive(25, 1);
  return rx;
}
// register access as the driver frames it (F1 reads carry the F1 response delay)
function read(fn, addr, len, pad = 0) {
  const rx = xfer(wire(cmd(false, fn, addr, len)), pad + 4);
  return unwire(rx.slice(pad));
}
function write(fn, addr, len, value) { xfer([...wire(cmd(true, fn, addr, len)), ...wire(value)], 0); }
function writeBytes(fn, addr, bytes) {
  const padded = [...bytes];
  while (padded.length % 4) padded.push(0);
  xfer([...wire(cmd(true, fn, addr, bytes.length)), ...padded], 0);
}

const out = { reads: {} };
function busUp() {
  drive(23, 0); drive(25, 1); drive(23, 1);
  out.reads.test16 = read(0, 0x14, 4);
  write(0, 0x00, 4, 0x000204b3);          // the driver's SPI_BUS_CONTROL value
  mode32 = true;
  out.reads.test32 = read(0, 0x14, 4);
}

if (scenario === 'bus') {
  drive(23, 1); drive(25, 1);
  out.reads.test16 = read(0, 0x14, 4);
  mode32 = true;
  out.reads.test16_as32 = read(0, 0x14, 4);    // a host that skipped the word-mode switch
  mode32 = false;
  write(0, 0x00, 4, 0x000204b3);
  mode32 = true;
  out.reads.test32 = read(0, 0x14, 4);
  out.reads.control = read(0, 0x00, 4);
  write(0, 0x18, 4, 0x12345678);
  out.reads.rw = read(0, 0x18, 4);
  write(0, 0x1d, 1, 16);                       // SPI_RESP_DELAY_F1
  write(1, 0x1000e, 1, 0x08);                  // ALP_AVAIL_REQ
  out.reads.csr_padded = read(1, 0x1000e, 1, 16) & 0xff;
  out.reads.csr_unpadded = read(1, 0x1000e, 1, 0) & 0xff;
} else if (scenario === 'upload') {
  busUp();
  write(0, 0x1d, 1, 16);
  const fw = fs.readFileSync(fwBin), nv = fs.readFileSync(nvBin);
  const RAM = 512 * 1024;
  let window = -1;
  const setWindow = (a) => {
    const w = a & ~0x7fff;
    if (w === window) return;
    write(1, 0x1000c, 1, w >>> 24); write(1, 0x1000b, 1, (w >>> 16) & 0xff); write(1, 0x1000a, 1, (w >>> 8) & 0xff);
    window = w;
  };
  const bp = (a, len, v) => { setWindow(a); write(1, (a & 0x7fff) | 0x8000, len, v); };
  const upload = (at, data) => {
    for (let off = 0; off < data.length; off += 64) {
      setWindow(at + off);
      writeBytes(1, ((at + off) & 0x7fff) | 0x8000, data.subarray(off, Math.min(off + 64, data.length)));
    }
  };
  let fwData = Buffer.concat([fw, Buffer.alloc((4 - fw.length % 4) % 4)]);
  if (variant === 'corrupt') { fwData = Buffer.from(fwData); fwData[fwData.length >> 1] ^= 0x01; }
  if (variant === 'short') fwData = fwData.subarray(0, fwData.length - 64);
  upload(0, fwData);
  const nvLen = (nv.length + 3) & ~3;
  upload(RAM - 4 - nvLen, Buffer.concat([nv, Buffer.alloc(nvLen - nv.length)]));
  const words = nvLen / 4;
  bp(RAM - 4, 4, variant === 'trailer' ? words : (((~words & 0xffff) << 16) | words) >>> 0);
  bp(0x18103000 + 0x408, 1, 0x03);           // ARM core: IOCTRL FGC|CLOCK_EN
  bp(0x18103000 + 0x800, 1, 0);              // ... out of reset: the firmware starts
  bp(0x18103000 + 0x408, 1, 0x01);
  out.reads.csr_at_release = read(1, 0x1000e, 1, 16) & 0xff;
  out.reads.status_at_release = read(0, 0x08, 4);
  advanceMs(30);
  out.reads.csr_30ms = read(1, 0x1000e, 1, 16) & 0xff;
  out.reads.status_30ms = read(0, 0x08, 4);
} else if (scenario === 'unsupported') {
  busUp();
  read(3, 0x0000, 4);                          // function 3 (no such function on the 43439)
  out.reads.f0_unknown = read(0, 0x12, 2);     // between F3_INFO and the test register
  write(0, 0x40, 1, 1);                        // past the bus registers
  write(1, 0x1000c, 1, 0x18); write(1, 0x1000b, 1, 0x00); write(1, 0x1000a, 1, 0x00);
  read(1, 0x9000, 4, 0);                       // backplane 0x18001000: not modelled
  writeBytes(2, 0, [0x10, 0, 0xef, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);   // F2 before the firmware runs
  xfer(wire(cmd(false, 0, 0x14, 4)), 4, 10);   // CS raised after 10 clocks
  drive(23, 0);
  read(0, 0x14, 4);                            // WL_ON low: the chip is off
}
out.log = log;
out.steps = chip.steps;
out.stats = chip.stats;
process.stdout.write(JSON.stringify(out) + '\n');
