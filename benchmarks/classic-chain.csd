<CsoundSynthesizer>
; The `classic` profile's chain in Csound, for comparing render speeds (benchmarks/render-speed --csound):
; two FM oscillators mixed, an echo (0.1 s, feedback 0.3, half wet), Costello's reverb (reverbsc,
; feedback 0.6, damping 4 kHz, half wet) and a resonant Moog ladder (2 kHz, resonance 0.6), soft-clipped,
; stereo at 48 kHz. Pitch, loudness and cutoff move 200 times a second, each change glided over 5 ms.
; Length: csound --smacro:SECONDS=600 -o out.wav benchmarks/classic-chain.csd
<CsOptions>
-d -m0 -W -f
</CsOptions>
<CsInstruments>
sr = 48000
ksmps = 64
nchnls = 2
0dbfs = 1

instr 1
  ; A seeded random walk, held for 5 ms at a time, then glided.
  kpitch randh 0.5, 200, 0.31
  kloud randh 0.25, 200, 0.47
  kbright randh 0.5, 200, 0.83
  kfreq port 110 * 2 ^ (4 * (kpitch + 0.5)), 0.005
  kamp port 0.5 + kloud, 0.005
  kcut port 500 * 2 ^ (4 * (kbright + 0.5)), 0.005
  a1 foscili 0.5, kfreq, 1, 1, 1
  a2 foscili 0.35, kfreq, 2, 1, 0.8
  amix = (a1 + a2) * kamp
  adelayed delayr 0.1
  aecho = adelayed
  delayw amix + aecho * 0.3
  adry = 0.5 * amix + 0.5 * aecho
  al, ar reverbsc adry, adry, 0.6, 4000
  awl = 0.5 * adry + 0.5 * al
  awr = 0.5 * adry + 0.5 * ar
  afl moogladder awl, kcut, 0.6
  afr moogladder awr, kcut, 0.6
  outs tanh(afl), tanh(afr)
endin
</CsInstruments>
<CsScore>
f 1 0 16384 10 1
i 1 0 $SECONDS
</CsScore>
</CsoundSynthesizer>
