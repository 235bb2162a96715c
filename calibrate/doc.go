// Package calibrate fits servesim's step-time, power and memory model to
// measurements, and stores the result as a profile file.
//
// # Reading guide
//
//   - terms.go: the step-time model, linear in its coefficients: a dense
//     cost curve of the step's tokens (or C0 + Cp·prefill_tokens +
//     Cd·decode_seqs), attention terms over the batch's context and over
//     the whole cache, its coefficients (StepCoefficients, Coef) and one
//     step's features (Observation).
//   - steps.go: RecoverSteps rebuilds engine steps (batch features and
//     durations) from the per-token timestamps of a live run's trace rows.
//     Its doc comment lists the assumptions (one engine, iteration-level
//     batching, one token per running request per step, the first token
//     closes the prefill step).
//   - nnls.go, fit.go: FitSteps fits the coefficients by non-negative least
//     squares (Lawson–Hanson, NNLS), of absolute or relative error (the
//     latter iteratively reweighted by the predicted times), with
//     analytic, heteroscedasticity-consistent (HC3) confidence
//     intervals, and reports terms the data do not excite instead of
//     returning NaN.
//   - resident.go: the cache a step attends over, replayed request by
//     request through sim.SlotCache for engines with fixed slots.
//   - heldout.go: CrossCheck fits on part of the data (whole runs when
//     there are several) and reports the error on the rest.
//   - admission.go: how the engine takes in requests while busy, from the
//     admission runs' probes and the requests that waited for a slot: a
//     delay before the next step, or Ollama's step-loop lock
//     (sim.Admission).
//   - power.go: FitPower fits idle + dynamic × utilization to NVML samples.
//   - profile.go: Profile, LoadProfile (strict JSON) and Save (atomic).
//   - vidur.go: an offline prior for the non-attention part of the step
//     time from Vidur's published operator profiles, and its comparison
//     with model.Roofline; vidur_profile.go: NewVidurProfile completes it
//     with the roofline's attention and overhead as a prior Profile.
//   - experiment.go: the experiment plans (quick, full): which short
//     closed-loop runs separate the step-time terms and probe the engine's
//     concurrency limit.
//   - live.go: RunPlan runs a plan against a live engine through package
//     replay and keeps every run's trace; Analyze recovers steps, fits,
//     cross-checks and builds the Profile.
//
// Everything but live.go is pure and needs no engine.
//
// # Units
//
// Trace times are int64 nanoseconds from the trace start (package traces).
// Observation.Seconds, coefficients, RMSE and prior times are seconds; Vidur
// CSV times are milliseconds per layer and are converted on import. Error
// fractions (MdAPE, MAPE) are fractions, not percent. Power is watts and
// utilization a fraction in [0, 1].
//
// # Settings and destinations
//
// Functions take settings in gonum optimize's shape: a pointer that may be
// nil, with zero fields meaning documented defaults (RecoverSettings,
// FitSettings, NNLSSettings). Functions that produce slices take a
// destination and return the extended or refilled slice (RecoverSteps
// appends to dst; StepCoefficients.Predict refills dst; NNLS fills dst,
// sizing it when empty). The caller owns every returned value; nothing is
// retained.
package calibrate
