"""The rehearsal (`hall --clocks N`): simulated clocks, the device app on
the simulator's fake hardware, playing the rounds a director types.  The
only part of the hall that runs the simulator (host_sim.sim, fakehw)."""
