// TM1637 modules on the emulated Pico's GPIOs: the wire, not the chip's
// meaning (issue 28).
//
//   require('./tm1637.js').attach(mcu, clk, dio, report)
//
// rp2040js has no pull-ups and no wired-AND: a GPIO the firmware releases
// (open drain: output disabled) reads whatever was last set as its input.
// Here each module's CLK and DIO are lines with the module's pull-up: low
// while the Pico drives them low, or (DIO) while the chip gives its ACK,
// else high; the Pico reads that level back.  The ACK is the one thing that
// must happen inside the emulated time, so it is here: after a START (DIO
// falls while CLK is high) the chip pulls DIO low from the 8th falling CLK
// edge to the 9th, for every byte, until a STOP (DIO rises while CLK is
// high).  What the bytes mean (commands, registers, the digits) is decoded
// once, on the host, by host_sim/fakehw/tm1637_emu.py: at each STOP
// report(line) gets "T <clk> <us> <levels>", the line transitions since the
// last report, one letter each: c/C CLK low/high, d/D DIO low/high.
'use strict';

function attach(mcu, clkPin, dioPin, report, nowUs) {
  const clk = mcu.gpio[clkPin], dio = mcu.gpio[dioPin];
  let c = 1, d = 1;           // the lines' levels
  let started = false, bits = 0, ack = false;
  let trace = '';

  const driven = (pin) => pin.outputEnable && !pin.outputValue;   // the Pico pulls low
  function update() {
    const nc = driven(clk) ? 0 : 1;
    if (nc !== c) {
      c = nc;
      trace += c ? 'C' : 'c';
      clk.setInputValue(!!c);
      if (started) {
        if (c) bits += 1;
        else if (bits === 8) ack = true;
        else if (bits === 9) { ack = false; bits = 0; }
      }
    }
    const nd = driven(dio) || ack ? 0 : 1;
    if (nd !== d) {
      d = nd;
      trace += d ? 'D' : 'd';
      dio.setInputValue(!!d);
      if (c && !ack) {
        if (d) {                       // STOP
          if (started) report('T ' + clkPin + ' ' + nowUs() + ' ' + trace);
          trace = '';
          started = false;
        } else {                       // START
          started = true;
        }
        bits = 0;
      }
    }
    if (!started && trace.length > 256) {  // idle toggling: pass it on in pieces
      report('T ' + clkPin + ' ' + nowUs() + ' ' + trace);
      trace = '';
    }
  }
  clk.setInputValue(true);
  dio.setInputValue(true);
  clk.addListener(update);
  dio.addListener(update);
}

module.exports = { attach };
