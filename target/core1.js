// The RP2040's second core for the emulated Pico (issue 29).
//
// rp2040js 1.4.1 emulates one Cortex-M0+ (mcu.core).  MicroPython's `_thread`
// on rp2 runs its thread on core 1 through pico-sdk's pico_multicore; what
// that uses, and so what is added here at run time (node_modules untouched):
//  - a second CortexM0Core on the same bus, held in reset while PSM FRCE_OFF
//    has PROC1 set (multicore_reset_core1) and started afresh from the boot
//    ROM's reset vector when it is cleared, as a chip's core 1: the boot ROM
//    drains its FIFO, pushes 0, then takes 0, 0, 1, VTOR, SP, entry from
//    core 0 through the FIFO, echoing each (multicore_launch_core1_raw);
//  - SIO CPUID: the number of the core that reads it;
//  - the two inter-core FIFOs (8 words each way): FIFO_ST (VLD, RDY, and the
//    sticky WOF/ROE, cleared by writing them), FIFO_WR, FIFO_RD, and each
//    core's FIFO IRQ (SIO_IRQ_PROC0 = 15 on core 0 only, SIO_IRQ_PROC1 = 16
//    on core 1 only) raised while its VLD, WOF or ROE is set (the IRQ that
//    multicore_lockout's victim parks in while the other core writes flash);
//  - SEV signals the event to both cores: a core asleep in WFE wakes, the
//    other's event register is set (pico-sdk's FIFO, spinlock-mutex and
//    lockout waits are WFE loops);
//  - per core: the NVIC (enables, pending, priorities), VTOR, SHPR, PRIMASK,
//    PendSV (they live in each CortexM0Core; rp2040js's PPB reads mcu.core,
//    which is the stepping core while it steps), the SIO hardware divider and
//    interpolators (swapped with the core).  The peripherals' IRQ lines reach
//    both cores' NVICs.  SysTick stays core 0's (MicroPython does not use it).
//  - the spinlocks were shared already (one SIO): they serve both cores.
// The two cores are interleaved in time: core 1 runs in short batches
// (QUANTUM cycles) behind core 0, never more than that behind; while core 0
// sleeps (WFE/WFI) core 1 alone moves time on.
'use strict';
const path = require('path');
const { CortexM0Core } = require(path.join(path.dirname(require.resolve('rp2040js')),
  'cortex-m0-core.js'));

const QUANTUM = 32;              // cycles core 1 may lag core 0
const FIFO_DEPTH = 8;
const PROC1 = 1 << 16;           // PSM FRCE_OFF.PROC1
const IRQ_PROC0 = 15, IRQ_PROC1 = 16;
const CPUID = 0x000, FIFO_ST = 0x050, FIFO_WR = 0x054, FIFO_RD = 0x058;
const SIO_PER_CORE = ['divDividend', 'divDivisor', 'divQuotient', 'divRemainder', 'divCSR',
  'interp0', 'interp1'];

function attachCore1(mcu) {
  const core0 = mcu.core;
  const sio = mcu.sio;
  const psm = mcu.peripherals[0x40010];
  const dual = {
    core1: null,            // null while held in reset
    launches: 0,            // times core 1 was released from reset
    core1Cycles: 0,
    fifoWords: [0, 0],      // words each core pushed
    fifoIrqs: [0, 0],       // FIFO IRQs entered (rising edges raised)
    debt: 0,
    core0Ran: false,        // did the last step() run core 0
  };
  // fifo[n]: the words waiting for core n (its RX; the other's TX)
  const fifo = [[], []];
  const sticky = [0, 0];    // WOF (bit 2), ROE (bit 3) per core
  const irqLevel = [false, false];
  const other = {};         // core 1's divider/interpolator state while core 0 steps
  const Interp = sio.interp0.constructor;
  other.divDividend = 0; other.divDivisor = 1; other.divQuotient = 0;
  other.divRemainder = 0; other.divCSR = 0;
  other.interp0 = new Interp(0); other.interp1 = new Interp(1);

  const coreNum = () => (mcu.core === core0 ? 0 : 1);
  function swapSio() {
    for (const k of SIO_PER_CORE) { const t = sio[k]; sio[k] = other[k]; other[k] = t; }
  }
  function updateIrqs() {
    for (let n = 0; n < 2; n++) {
      const level = fifo[n].length > 0 || sticky[n] !== 0;
      if (level !== irqLevel[n]) {
        irqLevel[n] = level;
        if (level) dual.fifoIrqs[n] += 1;
        const c = n === 0 ? core0 : dual.core1;
        if (c) c.setInterrupt(n === 0 ? IRQ_PROC0 : IRQ_PROC1, level);
      }
    }
  }
  // Each core's own logger: SEV is reported through logger.info (rp2040js
  // has no other hook for it); the harness's silence is kept otherwise.
  function sevFrom(self) {
    return {
      debug() {}, warn() {}, error() {},
      info(name, msg) {
        if (msg !== 'SEV') return;
        self.eventRegistered = true;               // SEV signals the event locally too
        const o = self === core0 ? dual.core1 : core0;
        if (!o) return;
        if (o.waiting) o.waiting = false;          // WFE returns (an event)
        else o.eventRegistered = true;
      },
    };
  }
  Object.defineProperty(core0, 'logger', { value: sevFrom(core0), writable: true });

  // SIO: CPUID and the FIFOs; everything else as rp2040js has it.
  const sioRead = sio.readUint32.bind(sio), sioWrite = sio.writeUint32.bind(sio);
  sio.readUint32 = (offset) => {
    switch (offset) {
      case CPUID: return coreNum();
      case FIFO_ST: {
        const n = coreNum();
        return (fifo[n].length ? 1 : 0) | (fifo[1 - n].length < FIFO_DEPTH ? 2 : 0) | sticky[n];
      }
      case FIFO_RD: {
        const n = coreNum();
        if (!fifo[n].length) { sticky[n] |= 8; updateIrqs(); return 0; }   // ROE
        const v = fifo[n].shift();
        updateIrqs();
        return v;
      }
      default: return sioRead(offset);
    }
  };
  sio.writeUint32 = (offset, value) => {
    switch (offset) {
      case FIFO_ST: { const n = coreNum(); sticky[n] &= ~(value & 0xc); updateIrqs(); return; }
      case FIFO_WR: {
        const n = coreNum();
        if (fifo[1 - n].length >= FIFO_DEPTH) sticky[n] |= 4;               // WOF
        else { fifo[1 - n].push(value >>> 0); dual.fifoWords[n] += 1; }
        updateIrqs();
        return;
      }
      case FIFO_RD: return;
      default: sioWrite(offset, value);
    }
  };

  // The peripherals' IRQ lines go to both NVICs.
  mcu.setInterrupt = (irq, value) => {
    core0.setInterrupt(irq, value);
    if (dual.core1) dual.core1.setInterrupt(irq, value);
  };

  // PSM FRCE_OFF.PROC1: core 1 held in reset while set, started afresh when cleared.
  const psmWrite = psm.writeUint32.bind(psm);
  psm.writeUint32 = (offset, value) => {
    const before = psm.frceOff & PROC1;
    psmWrite(offset, value);
    if (offset !== 0x04) return;
    const after = psm.frceOff & PROC1;
    if (after && !before) { dual.core1 = null; dual.debt = 0; }
    else if (!after && before) powerUp();
  };
  function powerUp() {
    const c = new CortexM0Core(mcu);
    Object.defineProperty(c, 'logger', { value: sevFrom(c), writable: true });
    // The hardware IRQ lines' present levels (the FIFO IRQs are per core).
    c.pendingInterrupts = core0.pendingInterrupts & 0x3ffffff & ~((1 << IRQ_PROC0) | (1 << IRQ_PROC1));
    c.reset();                       // SP and PC from the boot ROM's vectors (VTOR 0)
    dual.core1 = c;
    dual.debt = 0;
    dual.launches += 1;
    irqLevel[1] = false;
    updateIrqs();
  }

  // Run core 1 for `cycles` cycles (or until it sleeps), as the stepping core.
  function runCore1(cycles) {
    const c = dual.core1;
    mcu.core = c;
    swapSio();
    let n = 0;
    try {
      while (n < cycles && !c.waiting) n += c.executeInstruction();
    } finally {
      swapSio();
      mcu.core = core0;
    }
    dual.core1Cycles += n;
    return n;
  }
  // Both cores asleep (or core 1 held in reset): the harness may skip time.
  Object.defineProperty(dual, 'waiting', {
    get() { return core0.waiting && (!dual.core1 || dual.core1.waiting); },
  });
  // One step: an instruction of core 0 and core 1 brought level with it, or,
  // core 0 asleep, a batch of core 1.  Returns the cycles time moved on.
  dual.step = () => {
    const c1 = dual.core1;
    if (core0.waiting) {
      dual.core0Ran = false;
      dual.debt = 0;
      return c1 && !c1.waiting ? Math.max(runCore1(QUANTUM), 1) : 0;
    }
    dual.core0Ran = true;
    const c = core0.executeInstruction();
    if (c1 && !c1.waiting) {
      dual.debt += c;
      if (dual.debt >= QUANTUM) dual.debt -= runCore1(dual.debt);
    } else dual.debt = 0;
    return c;
  };
  // At power-up core 1 runs the boot ROM to its wait for core 0 (as on a chip).
  powerUp();
  dual.launches = 0;
  return dual;
}

module.exports = { attachCore1 };
