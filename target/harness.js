// The emulated Raspberry Pi Pico for the target run (issue 11).
//
//   node target/harness.js --bootrom B --uf2 U --flash FILE [--fs-image IMG] [--advance-ms N]
//        [--reflash]
//
// The first run on FILE (none yet) is a blank chip with U copied onto it
// (and IMG at the flash's end: the filesystem region); later runs power up on FILE as the
// last one left it; --reflash copies U onto it first (an upgrade in BOOTSEL
// mode: loadUf2).
//        [--battery-mv MV] [--uid N] [--erase-ms MS] [--program-us US] [--i2c-us]
//        [--every-poll]
//        [--tm1637 CLK,DIO[,CLK,DIO]] [--cyw43 [--cyw43-fw H] [--cyw43-nvram H] [--cyw43-trace]
//        [--ap-ssid S [--ap-pass P] [--net-relay R]]] [--time-fn HEX]
//
// --time-fn HEX: each call core 0 makes to the function at that address (its
// entry, the thumb bit ignored) is timed in simulated time, from the
// instruction at its entry to the one at its return address (LR then):
// "G <us> <duration us>" lines out at each return, and in STATS fn_calls,
// fn_max_us, fn_total_us.  (bench/pico_w_bench.py times the image's
// gc_collect with it: a garbage collection's pause.)
//
// --cyw43: a CYW43439 on GPIO 23/24/25/29, as on a Pico W (target/cyw43.js;
// "W ..." lines out).  H: the driver's firmware / NVRAM headers (the blobs
// the upload is checked against).  --ap-ssid: an access point in range, its
// network behind it (target/netpeer.js: ARP, DHCP, ping, TCP to the gateway
// 192.168.4.1 relayed to 127.0.0.1, same port); R adds relayed addresses,
// comma-separated: IP (every port, the same port on 127.0.0.1) or
// IP:PORT=HOSTPORT.
//
// --tm1637: TM1637 modules on those GPIOs (target/tm1637.js: the lines and
// the chip's ACK; "T <clk> <us> <levels>" lines out, host_sim decodes them).
//
// --uid N (0-255, default 0) shifts the flash's unique id, so two runs can be
// two different boards (machine.unique_id(): the clock's id).
//
// rp2040js runs the official MicroPython RPI_PICO image from the boot ROM.  What
// rp2040js leaves out and the firmware needs is added here:
//  - a NOR flash (W25Q16-like) behind the SSI: WREN, page program, 4K/32K/64K
//    erase, status, JEDEC id, unique id, read; chip select from the IO_QSPI SS
//    pad override (how the boot ROM's flash routines frame commands).  The whole
//    2 MB is kept in FILE and written through on every program and erase, so
//    killing this process and starting again on FILE is a true power cut.
//    With --erase-ms / --program-us the status register reports BUSY for that
//    much simulated time after a sector erase / a page program (the W25Q16's
//    datasheet: tSE 45 ms typ., 400 max; tPP 0.4 ms typ., 3 max), which the
//    boot ROM's flash routines poll, with the rp2 port's interrupts off.
//  - the watchdog's feeds (writes to WATCHDOG LOAD) timed: the longest gap,
//    and its triggers (a starved watchdog) counted;
//  - how long a button edge waits for the core to take interrupts (PRIMASK
//    set: a flash operation), the longest such wait: the pin IRQ stamps the
//    press that much late.  "F <pin> <0|1>" drives a pin at the start of the
//    next erase or page program, so that edge lands in flash work.
//  - the button and I2C lines held high (rp2040js has no pull-ups);
//  - I2C0 answered with ACKs at every address, the bytes written reported;
//  - the USB-CDC REPL carried over stdin/stdout (host_sim/target.py);
//  - the RP2040's second core (target/core1.js): both cores stepped here.
//
// Line protocol.  In (stdin):  S <hex> serial to the board; P <pin> <0|1> drive
// an input; F <pin> <0|1> drive it when the next flash erase/program starts; RUNTO <ms> run until that simulated time, then report; GO run
// freely; HALT stop running, then report; STATS; PEEK <hex addr> <n> (n words of memory);
// PC (where the core is: debugging); PING <ip> [seq] (--ap-ssid: the AP's network pings the clock); QUIT.
// Faults on the radio (--ap-ssid; each logged as a "W <us> FAULT ..." line, what it
// costs as "W <us> DROP ..."): AP DOWN / AP UP: the access point vanishes (an
// associated clock is deauthenticated, its link down; no frame passes, a join is
// refused) and comes back (target/cyw43.js); DROP <n>: every n-th frame each way
// lost, DROP 0 none; MOVE <old ip> <new ip>: a relayed address changes (the old one
// answers nothing, its connections gone: target/netpeer.js).  A fault's command
// acts at the simulated instant the emulation has reached (send it between RUNTOs).
// Out (stdout): READY; S <hex> serial from the board; I <addr> <hex> one I2C
// write transaction (with --i2c-us: and its simulated us); AT <ms> after RUNTO; STATS erases=.. programs=.. ...
// (busy_ns: core 0 executing; core1_launches, core1_busy_ns, fifo_words0/1: words each core pushed,
// fifo_irqs0/1: each core's FIFO IRQ raised)
'use strict';
const fs = require('fs');
const readline = require('readline');
const { RP2040, USBCDC, BasePeripheral } = require('rp2040js');
const path = require('path');
const { RPSSI } = require(path.join(path.dirname(require.resolve('rp2040js')), 'peripherals', 'ssi.js'));
const { attachCore1 } = require('./core1.js');   // the second core (issue 29)
const cyw43 = require('./cyw43.js');             // the Pico W's radio (issue 38)

const FLASH_SIZE = 2 * 1024 * 1024;
const HIGH_PINS = [13, 14, 15, 4, 5];       // buttons (pull-ups) and I2C0 SDA/SCL

function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

const UID = Number(arg('--uid', '0')) & 0xff;
const I2C_US = process.argv.includes('--i2c-us');   // date each I2C write (simulated us)
const out = (line) => process.stdout.write(line + '\n');
const hex = (bytes) => Buffer.from(bytes).toString('hex');

// -- the NOR flash ---------------------------------------------------------------
const stats = { erases: 0, erases4k: 0, erases64k: 0, programs: 0, programBytes: 0, reads: 0,
  flash_busy_us: 0, wdt_feeds: 0, wdt_max_gap_us: 0, wdt_triggers: 0,
  edges: 0, edges_in_flash: 0, edge_max_wait_us: 0, status_reads: 0, poll_wait_ns: 0 };
const ERASE_NS = Number(arg('--erase-ms', '0')) * 1e6;
const PROGRAM_NS = Number(arg('--program-us', '0')) * 1e3;
let onFlashOp = null;     // "F": a pin change waiting for the next erase/program

class NorFlashSSI extends RPSSI {
  constructor(rp2040, name, flash, fd) {
    super(rp2040, name);
    this.flash = flash;
    this.fd = fd;
    this.rx = [];
    this.selected = false;
    this.wel = false;
    this.cmd = -1;
    this.n = 0;       // bytes of the command so far (after the opcode)
    this.addr = 0;
    this.programmed = false;
    this.busyUntil = 0;
    this.stall = () => false;   // main(): whether a poll may wait for the flash
    this.limit = () => 0;       // main(): how far it may wait (simulated ns)
  }
  // The status polls of a busy flash (issue 37).  The boot ROM polls the
  // status register, with the rp2 port's interrupts off, until BUSY clears:
  // at the datasheet's 400 ms an erase, some 650 000 polls, each emulated
  // instruction by instruction (most of the emulator's time in the
  // watchdog's run).  While core 1 has not been launched (a board without
  // Wi-Fi: nothing else runs meanwhile), a poll of a busy flash gets its
  // answer when the flash is ready: the clock moves on to that instant at
  // once (core 0's busy time: it spins on the chip) and the ROM sees BUSY
  // clear on that poll.  The time, the watchdog's alarms in it, a pin edge
  // waiting on the core all stay as on the chip; only the polls in between
  // are not emulated (stats: status_reads).  Never past the time asked for
  // (RUNTO: the host may drive a pin there), nor more than 1 ms at a time
  // running freely (GO: no faster than the wall clock, as a sleeping core).
  // --every-poll: each poll is emulated.
  waitReady() {
    const now = this.rp2040.clock.nanos;
    const wait = Math.min(this.busyUntil, this.limit()) - now;
    if (wait > 0 && this.stall()) {
      this.rp2040.clock.tick(wait);
      stats.poll_wait_ns += wait;
    }
  }
  busyFor(ns) {
    if (!ns) return;
    this.busyUntil = this.rp2040.clock.nanos + ns;
    stats.flash_busy_us += Math.round(ns / 1e3);
  }
  readUint32(offset) {
    if (offset === 0x28) { // SR: TX never full, always empty; RX not empty if we have data
      return 0x2 | 0x4 | (this.rx.length ? 0x8 : 0);
    }
    if (offset === 0x24) return this.rx.length; // RXFLR
    if (offset === 0x20) return 0;              // TXFLR
    if (offset === 0x60) { if (process.env.SSI_LOG) process.stderr.write('r' + this.rx.length + ' '); return this.rx.length ? this.rx.shift() : 0; }
    return super.readUint32(offset);
  }
  writeUint32(offset, value) {
    if (offset === 0x60) {
      this.rx.push(this.selected ? this.byte(value & 0xff) : 0);
      this.pushes = (this.pushes || 0) + 1;
      if (process.env.SSI_LOG) process.stderr.write('w' + (value & 0xff).toString(16) + (this.selected ? '' : '*') + ' ');
      if (this.rx.length > 16) this.rx.shift();
      return;
    }
    if (offset === 0x08 && !(value & 1)) this.rx.length = 0; // SSIENR off empties the FIFOs
    super.writeUint32(offset, value);
  }
  select(low) {
    if (process.env.SSI_LOG) process.stderr.write(low ? '\nCS0 ' : ' CS1\n');
    if (low === this.selected) return;
    if (!low) this.finish();
    this.selected = low;
    this.cmd = -1;
    this.n = 0;
    this.programmed = false;
  }
  persist(start, len) {
    fs.writeSync(this.fd, this.flash, start, len, start);
  }
  erase(size) {
    if (!this.wel) return;
    const start = this.addr & ~(size - 1) & (FLASH_SIZE - 1);
    this.flash.fill(0xff, start, start + size);
    this.persist(start, size);
    stats.erases += 1;
    if (size === 4096) stats.erases4k += 1; else stats.erases64k += 1;
    this.wel = false;
    this.busyFor(ERASE_NS * size / 4096);
  }
  finish() {
    if (this.cmd < 0) return;
    const hasAddr = this.n >= 3;
    if (this.cmd === 0x02 && this.programmed) {
      const page = this.addr & ~0xff & (FLASH_SIZE - 1);
      this.persist(page, 256);
      stats.programs += 1;
      this.wel = false;
      this.busyFor(PROGRAM_NS);
    } else if (this.cmd === 0x20 && hasAddr) this.erase(4096);
    else if (this.cmd === 0x52 && hasAddr) this.erase(32768);
    else if (this.cmd === 0xd8 && hasAddr) this.erase(65536);
  }
  byte(b) {
    if (this.cmd < 0) {
      this.cmd = b;
      this.n = 0;
      if (b === 0x06) this.wel = true;
      if (b === 0x04) this.wel = false;
      if ((b === 0x02 || b === 0x20 || b === 0x52 || b === 0xd8) && this.wel && onFlashOp) {
        const f = onFlashOp;
        onFlashOp = null;
        f();
      }
      return 0;
    }
    const i = this.n++;
    switch (this.cmd) {
      case 0x05:                                              // status 1: WEL, BUSY
        stats.status_reads += 1;
        this.waitReady();
        return (this.wel ? 0x02 : 0x00) | (this.rp2040.clock.nanos < this.busyUntil ? 0x01 : 0x00);
      case 0x35: return 0x02;                                 // status 2: QE set
      case 0x9f: return [0xef, 0x40, 0x15][i] || 0;           // W25Q16JV
      case 0x4b: return i < 4 ? 0 : (0x10 + i + UID) & 0xff;  // unique id (--uid)
      case 0x03: case 0x0b: case 0x02: case 0x20: case 0x52: case 0xd8: {
        if (i < 3) {
          this.addr = ((this.addr << 8) | b) & 0xffffff;
          if (i === 0) this.addr = b;
          return 0;
        }
        if (this.cmd === 0x0b && i === 3) return 0;           // dummy byte
        if (this.cmd === 0x02) {
          if (this.wel) {
            const base = this.addr & ~0xff;
            const a = (base | ((this.addr + i - 3) & 0xff)) & (FLASH_SIZE - 1);
            this.flash[a] &= b;                               // NOR: program clears bits
            this.programmed = true;
            stats.programBytes += 1;
          }
          return 0;
        }
        if (this.cmd === 0x03 || this.cmd === 0x0b) {
          const skip = this.cmd === 0x0b ? 4 : 3;
          return this.flash[(this.addr + i - skip) & (FLASH_SIZE - 1)];
        }
        return 0;
      }
      default: return 0;
    }
  }
}

// IO_QSPI: only the SS pad's output override matters (the flash chip select).
class QspiIO extends BasePeripheral {
  constructor(rp2040, name, ssi) {
    super(rp2040, name);
    this.regs = new Uint32Array(12);
    this.ssi = ssi;
  }
  readUint32(offset) {
    return offset < 48 ? this.regs[offset >> 2] : 0;
  }
  writeUint32(offset, value) {
    if (offset >= 48) return;
    this.regs[offset >> 2] = value;
    if (offset === 0x0c) { // GPIO_QSPI_SS_CTRL: OUTOVER 2 = drive low, 3 = drive high
      const over = (value >> 8) & 3;
      this.ssi.select(over === 2);
    }
  }
}

// -- the board ------------------------------------------------------------------
// A UF2 copied onto the board in BOOTSEL mode: as the boot ROM writes it,
// each 4 KB sector a block lands in is erased first (once), then the
// block's bytes are programmed; sectors no block names keep their data
// (a firmware-only image leaves the filesystem region alone).
function loadUf2(flash, data) {
  const erased = new Set();
  for (let off = 0; off + 512 <= data.length; off += 512) {
    const magic0 = data.readUInt32LE(off), magic1 = data.readUInt32LE(off + 4);
    if (magic0 !== 0x0a324655 || magic1 !== 0x9e5d5157) continue;
    const addr = data.readUInt32LE(off + 12) - 0x10000000, size = data.readUInt32LE(off + 16);
    const sector = addr & ~0xfff;
    if (!erased.has(sector)) { flash.fill(0xff, sector, sector + 4096); erased.add(sector); }
    flash.set(data.subarray(off + 32, off + 32 + size), addr);
  }
}

function main() {
  const flashPath = arg('--flash');
  const mcu = new RP2040();
  mcu.logger = { debug() {}, info() {}, warn() {}, error() {} };
  const rom = fs.readFileSync(arg('--bootrom'));
  mcu.loadBootrom(new Uint32Array(rom.buffer, rom.byteOffset, rom.length / 4));
  const flash = mcu.flash.subarray(0, FLASH_SIZE);
  if (fs.existsSync(flashPath) && fs.statSync(flashPath).size === FLASH_SIZE) {
    flash.set(fs.readFileSync(flashPath));     // power up on what the last run left
    if (process.argv.includes('--reflash')) {  // BOOTSEL + copy a new image first
      loadUf2(flash, fs.readFileSync(arg('--uf2')));
      fs.writeFileSync(flashPath, flash);
    }
  } else {
    flash.fill(0xff);                          // a blank chip
    loadUf2(flash, fs.readFileSync(arg('--uf2')));
    const img = arg('--fs-image');
    if (img) {                                 // a filesystem: the flash's last bytes
      const data = fs.readFileSync(img);       // (the official RPI_PICO's 1408 KB, every
      flash.set(data, FLASH_SIZE - data.length);   // image of ours 848 KB: provision.py)
    }
    fs.writeFileSync(flashPath, flash);
  }
  const fd = fs.openSync(flashPath, 'r+');
  const ssi = new NorFlashSSI(mcu, 'SSI', flash, fd);
  mcu.peripherals[0x18000] = ssi;
  mcu.peripherals[0x40018] = new QspiIO(mcu, 'IO_QSPI_BASE', ssi);

  const clock = mcu.clock;
  // An alarm is at least one system clock cycle (8 ns) ahead.  rp2040js's
  // periodic PWM alarm (the buzzer) could reschedule itself a fraction of a
  // ns ahead, which the clock's float nanos round to the same instant: it
  // then fired for ever inside one tick and the emulator hung (the frozen
  // image's game runs, issue 30).
  const linkAlarm = clock.linkAlarm.bind(clock);
  clock.linkAlarm = (nanos, alarm) => linkAlarm(nanos < 8 ? 8 : nanos, alarm);
  const advance = Number(arg('--advance-ms', '0'));
  if (advance) clock.tick(advance * 1e6);      // the timer starts near its wrap
  const t0 = clock.nanos;
  const simMs = () => Math.floor((clock.nanos - t0) / 1e6);
  const simUs = () => Math.round((clock.nanos - t0) / 1e3);

  for (const p of HIGH_PINS) mcu.gpio[p].setInputValue(true);

  // The watchdog: its feeds timed, its triggers counted.
  const wd = mcu.peripherals[0x40058];
  let lastFeed = -1;
  const wdWrite = wd.writeUint32.bind(wd);
  wd.writeUint32 = (offset, value) => {
    if (offset === 0x04) {
      const now = clock.nanos;
      if (lastFeed >= 0) stats.wdt_max_gap_us = Math.max(stats.wdt_max_gap_us, Math.round((now - lastFeed) / 1e3));
      lastFeed = now;
      stats.wdt_feeds += 1;
    }
    wdWrite(offset, value);
  };
  wd.onWatchdogTrigger = () => { stats.wdt_triggers += 1; };

  // A button edge while the core has interrupts off (PRIMASK): timed until
  // it takes them again (the pin IRQ runs then).
  let edgeAt = -1;
  function edge(pin, level) {
    mcu.gpio[pin].setInputValue(level);
    stats.edges += 1;
    if (mcu.core.PM) { edgeAt = clock.nanos; stats.edges_in_flash += 1; }
  }
  // The battery divider (2:1) on GPIO28 = ADC2, 12 bits of 3.3 V.
  const mv = Number(arg('--battery-mv', '3900'));
  mcu.adc.channelValues[2] = Math.round(mv / 2 / 3300 * 4095);

  // I2C0: every address ACKs, each write transaction reported.
  const i2c = mcu.i2c[0];
  let addr = -1, bytes = [];
  i2c.onConnect = (a) => { addr = a; bytes = []; i2c.completeConnect(true); };
  i2c.onWriteByte = (v) => { bytes.push(v); i2c.completeWrite(true); };
  i2c.onReadByte = () => i2c.completeRead(0xff);
  i2c.onStop = () => {
    if (bytes.length) out('I ' + addr + ' ' + hex(bytes) + (I2C_US ? ' ' + simUs() : ''));
    bytes = [];
    i2c.completeStop();
  };

  const tm = arg('--tm1637', '').split(',').filter((x) => x).map(Number);
  for (let k = 0; k + 1 < tm.length; k += 2) {
    require('./tm1637.js').attach(mcu, tm[k], tm[k + 1], out, simUs);
  }

  const cdc = new USBCDC(mcu.usbCtrl);
  // The host's side of the CDC OUT endpoint.  A real USB host NAKs an OUT
  // endpoint while it has nothing to send (the device sees no interrupt);
  // rp2040js's CDC answers every armed OUT buffer at once, with 0 bytes when
  // it has none, 10 us later: a storm of USB interrupts that kept the
  // emulated core awake through every sleep (89% busy in time.sleep_ms).
  // Here an OUT buffer armed while the host has nothing waits for the next
  // bytes from the host, as on a real bus.  (Not while running freely, GO:
  // a host program such as mpremote on the REPL then sees rp2040js's own
  // behaviour, which it was tested with.)
  const usbRead = mcu.usbCtrl.onEndpointRead;
  let outArmed = null;      // [endpoint, size] of an OUT buffer the host holds
  mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
    if (endpoint === cdc.outEndpoint && cdc.txFIFO.empty && until !== Infinity) {
      outArmed = [endpoint, size];
      return;
    }
    usbRead(endpoint, size);
  };
  function releaseOut() {
    if (outArmed) { const [e, n] = outArmed; outArmed = null; usbRead(e, n); }
  }
  function serialIn(bytes) {
    for (const b of bytes) cdc.sendSerialByte(b);
    if (!cdc.txFIFO.empty) releaseOut();
  }
  cdc.onSerialData = (buf) => out('S ' + hex(buf));
  cdc.onDeviceConnected = () => out('USB');


  // As the rp2040js demo does: start at boot2 (flash offset 0), which sets up
  // XIP and enters MicroPython; the boot ROM's flash routines serve it after.
  mcu.core.PC = 0x10000000;
  const dual = attachCore1(mcu);
  ssi.stall = () => dual.launches === 0 && !process.argv.includes('--every-poll');
  ssi.limit = () => (until === Infinity ? clock.nanos + 1e6 : t0 + until * 1e6);
  const wifi = process.argv.includes('--cyw43')
    ? cyw43.attach(mcu, { out, fwHeader: arg('--cyw43-fw'), nvramHeader: arg('--cyw43-nvram'),
      trace: process.argv.includes('--cyw43-trace'), apSsid: arg('--ap-ssid'), apPass: arg('--ap-pass', ''),
      relay: require('./netpeer.js').parseRelay(arg('--net-relay', '')) })
    : null;
  // --time-fn: the function timed on core 0 (entry address, 0: none), the call in progress
  const fnAt = parseInt(arg('--time-fn', '0'), 16) & ~1;
  let fnRet = -1, fnStart = 0;
  function timeFn() {
    const pc = mcu.core.PC;
    if (fnRet < 0) {
      if (pc === fnAt) { fnRet = mcu.core.registers[14] & ~1; fnStart = clock.nanos; }
    } else if (pc === fnRet) {
      const us = Math.round((clock.nanos - fnStart) / 1e3);
      stats.fn_calls += 1; stats.fn_total_us += us;
      stats.fn_max_us = Math.max(stats.fn_max_us, us);
      out('G ' + simUs() + ' ' + us);
      fnRet = -1;
    }
  }
  if (fnAt) Object.assign(stats, { fn_calls: 0, fn_max_us: 0, fn_total_us: 0 });
  let until = 0;          // run while simMs() < until (Infinity: free run)
  // run() waiting for the host's next RUNTO: the timer that polls for it,
  // cleared when it comes (kick()), so the run goes on at once, not up to
  // 5 ms of wall clock later on every round trip (run_to(t + 1) in a loop)
  let idle = null;
  function kick() {
    if (idle !== null) { clearTimeout(idle); idle = null; setImmediate(run); }
  }
  let busyNs = 0, waitNs = 0;
  const cycleNanos = 1e9 / 125e6;
  function run() {
    idle = null;
    const end = Date.now() + 20;
    while (Date.now() < end) {
      if (simMs() >= until) {
        if (until !== Infinity && until > 0) { out('AT ' + simMs()); until = 0; }
        idle = setTimeout(run, 5);
        return idle;
      }
      for (let i = 0; i < 20000; i++) {
        if (edgeAt >= 0 && !mcu.core.PM) {
          stats.edge_max_wait_us = Math.max(stats.edge_max_wait_us, Math.round((clock.nanos - edgeAt) / 1e3));
          edgeAt = -1;
        }
        if (dual.waiting) {
          // Asleep (WFE/WFI) until the next alarm, but never past the time
          // asked for: an input from the host (a pin, the serial) may wake
          // the core there.  With no alarm at all, only such an input can.
          // Running freely (GO: a host program on the USB REPL), a sleeping
          // core's time goes no faster than the wall clock's, as a board's.
          if (wifi && wifi.pioActive()) {
            // a PIO program running (a radio transfer): time goes on in steps
            clock.tick(16 * cycleNanos);
            waitNs += 16 * cycleNanos;
            wifi.tick(16);
            continue;
          }
          const free = until === Infinity;
          const stop = free ? clock.nanos + 1e6 : t0 + until * 1e6;
          const evAt = wifi ? wifi.nextEventNs() : Infinity;
          if (evAt <= stop && (!clock.nextAlarm || evAt < clock.nextAlarm.nanos)) {
            // the radio's next event (a join's, target/cyw43.js) comes first:
            // its HOST_WAKE edge may wake the core there
            const n = Math.max(evAt - clock.nanos, 0) + 1;
            clock.tick(n);
            waitNs += n;
            wifi.tick(0);
            continue;
          }
          if (!clock.nextAlarm || clock.nextAlarm.nanos > stop) {
            // (1 ns past it: the clock's nanos are floats, and stop - nanos
            // added back may fall a hair short of stop, for ever)
            const n = Math.max(stop - clock.nanos, 0) + 1;
            clock.tick(n);
            waitNs += n;
            if (free) return setTimeout(run, 1);
            break;
          }
          const n = clock.nanosToNextAlarm;
          clock.tick(n);
          waitNs += n;
          i += n / cycleNanos;
        } else {
          const c = dual.step();
          clock.tick(c * cycleNanos);
          if (wifi) wifi.tick(c);
          if (dual.core0Ran) { busyNs += c * cycleNanos; if (fnAt) timeFn(); } else waitNs += c * cycleNanos;
        }
      }
    }
    setImmediate(run);
  }

  const rl = readline.createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    const w = line.trim().split(/\s+/);
    switch (w[0]) {
      case 'S': serialIn(Buffer.from(w[1], 'hex')); break;
      case 'P': edge(Number(w[1]), w[2] === '1'); break;
      case 'F': { const pin = Number(w[1]), level = w[2] === '1'; onFlashOp = () => edge(pin, level); break; }
      case 'RUNTO': until = Number(w[1]); kick(); break;
      case 'GO': until = Infinity; releaseOut(); kick(); break;
      case 'HALT': until = 0; out('AT ' + simMs()); break;
      case 'STATS':
        out('STATS ' + Object.entries(stats).map(([k, v]) => k + '=' + v).join(' ') +
            ' busy_ns=' + Math.round(busyNs + stats.poll_wait_ns) + ' wait_ns=' + Math.round(waitNs) + ' t_ms=' + simMs() +
            ' core1_launches=' + dual.launches + ' core1_busy_ns=' + Math.round(dual.core1Cycles * cycleNanos) +
            ' fifo_words0=' + dual.fifoWords[0] + ' fifo_words1=' + dual.fifoWords[1] +
            ' fifo_irqs0=' + dual.fifoIrqs[0] + ' fifo_irqs1=' + dual.fifoIrqs[1] +
            (wifi ? ' ' + Object.entries(wifi.stats).map(([k, v]) => k + '=' + v).join(' ') : ''));
        break;
      case 'TRACE': {
        const seen = [];
        const r32 = mcu.readUint32.bind(mcu), w32 = mcu.writeUint32.bind(mcu);
        mcu.readUint32 = (a) => { const v = r32(a); if (seen.length < 40 && (a >>> 0) >= 0x14000000) seen.push('r' + (a >>> 0).toString(16) + '=' + (v >>> 0).toString(16)); return v; };
        mcu.writeUint32 = (a, v) => { if (seen.length < 40 && (a >>> 0) >= 0x14000000) seen.push('w' + (a >>> 0).toString(16) + '=' + (v >>> 0).toString(16)); return w32(a, v); };
        for (let i = 0; i < 2000; i++) mcu.core.executeInstruction();
        mcu.readUint32 = r32; mcu.writeUint32 = w32;
        out('TRACE regs=' + Array.from(mcu.core.registers.slice(0, 16)).map((x) => x.toString(16)).join(',') + ' rx=' + ssi.rx.length + ' ' + seen.join(' '));
        break;
      }
      case 'PEEK': {   // PEEK <hex address> <words>: the emulated memory, as words
        const a = parseInt(w[1], 16), n = Number(w[2]);
        const words = [];
        for (let k = 0; k < n; k++) words.push(mcu.readUint32(a + 4 * k) >>> 0);
        out('PEEK ' + words.join(','));
        break;
      }
      case 'PING':   // PING <ip>: the AP's network pings that address (target/netpeer.js)
        if (wifi && wifi.chip.peer) wifi.chip.peer.ping(w[1], Number(w[2] || 1));
        else out('W ' + simUs() + ' UNSUPPORTED PING without an access point');
        break;
      case 'AP':     // AP DOWN | AP UP (target/cyw43.js apDown/apUp)
        if (!wifi) out('W ' + simUs() + ' UNSUPPORTED AP without --cyw43');
        else if (w[1] === 'DOWN') wifi.chip.apDown();
        else if (w[1] === 'UP') wifi.chip.apUp();
        else wifi.chip.unsupported('AP ' + (w[1] || '') + ': not DOWN or UP');
        break;
      case 'DROP':   // DROP <n> (target/netpeer.js setDrop)
      case 'MOVE':   // MOVE <old ip> <new ip> (target/netpeer.js move)
        if (!wifi || !wifi.chip.peer) out('W ' + simUs() + ' UNSUPPORTED ' + w[0] + ' without an access point');
        else if (w[0] === 'MOVE') wifi.chip.peer.move(w[1] || '', w[2] || '');
        else if (/^\d+$/.test(w[1] || '')) wifi.chip.peer.setDrop(Number(w[1]));
        else wifi.chip.unsupported('DROP ' + (w[1] || '') + ': not a whole number');
        break;
      case 'PC': out('PC ' + mcu.core.PC.toString(16) + ' ' + simMs() + ' sel=' + ssi.selected + ' cmd=' + ssi.cmd); break;
      case 'QUIT': fs.closeSync(fd); process.exit(0);
    }
  });
  rl.on('close', () => process.exit(0));
  out('READY');
  run();
}

main();
