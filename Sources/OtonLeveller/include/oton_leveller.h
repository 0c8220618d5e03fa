/* The loudness leveller of what plays (docs/levelling.md): EBU R128 measurement (libebur128), a
 * smoothed gain towards a target, and a look-ahead peak limiter, applied in place to interleaved
 * 32-bit float audio on a GStreamer streaming thread. Nothing here allocates per buffer: memory is
 * taken when the format is known (a caps event) and kept.
 *
 * Threads: `oton_leveller_configure` and `oton_leveller_process` run on one streaming thread at a
 * time; `oton_leveller_set_enabled` and `oton_leveller_read` on any thread (atomics). */
#ifndef OTON_LEVELLER_H
#define OTON_LEVELLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the gain logic: loudness readings in, a gain in dB out (no audio, no allocation) ---- */

/* Seconds of loudness (gated blocks) the running estimate mostly reflects. */
#define OTON_LEVEL_WINDOW_SECONDS 20.0
/* The gain moves at most this fast (dB per second) once settled: no pumping. */
#define OTON_LEVEL_SLEW_DB_PER_SECOND 1.0
/* …and this fast while a station never measured before settles (its first seconds). */
#define OTON_LEVEL_SETTLING_DB_PER_SECOND 10.0
/* Seconds of gated loudness after which a new station counts as settled. */
#define OTON_LEVEL_SETTLING_SECONDS 5.0
/* The gain stays within these (dB): quiet passages are not lifted without end. */
#define OTON_LEVEL_MAX_BOOST_DB 12.0
#define OTON_LEVEL_MAX_CUT_DB (-24.0)
/* Blocks quieter than this (LUFS) are not loudness: silence, a pause (EBU R128's absolute gate). */
#define OTON_LEVEL_ABSOLUTE_GATE_LUFS (-70.0)
/* Blocks more than this below the running ungated loudness do not count (R128's relative gate). */
#define OTON_LEVEL_RELATIVE_GATE_LU 10.0

typedef struct oton_level_gain {
    double target_lufs;
    /* Mean energy of the gated blocks and of the blocks above the absolute gate (exponential, see
     * OTON_LEVEL_WINDOW_SECONDS); 0 while none was seen. */
    double gated_energy;
    double ungated_energy;
    /* Seconds of gated and of absolute-gated blocks taken in (the first ones average plainly). */
    double gated_seconds;
    double ungated_seconds;
    /* The estimate started from a remembered loudness: no settling phase. */
    int remembered;
    double gain_db;
} oton_level_gain;

/* A gain logic aiming at `target_lufs`; `remembered_lufs` (NAN: none) is the station's loudness
 * measured before, taken as a settled estimate so the gain starts where it belongs. */
void oton_level_gain_init(oton_level_gain *gain, double target_lufs, double remembered_lufs);
/* One loudness reading (momentary, LUFS; -HUGE_VAL for silence) covering `seconds` of new audio.
 * Returns the gain (dB) after it, moved at most the slew allowed for `seconds`. */
double oton_level_gain_step(oton_level_gain *gain, double momentary_lufs, double seconds);
/* The running loudness estimate (LUFS), NAN while nothing was measured. */
double oton_level_gain_loudness(const oton_level_gain *gain);
/* The gain the estimate asks for (dB, within the limits), 0 while nothing was measured. */
double oton_level_gain_desired(const oton_level_gain *gain);

/* ---- the limiter: a look-ahead peak limiter on interleaved float frames ---- */

/* The ceiling (sample peak): −1.5 dBFS, so that the true peak stays under −1 dBTP with 0.5 dB for
 * what lies between samples and for the conversions after it (the sink's format, the sound
 * server's resampling). The peaks are found sample by sample, not oversampled. */
#define OTON_LIMITER_CEILING_DBFS (-1.5)
/* Look-ahead (ms): the gain falls over this long before a peak, never at it. */
#define OTON_LIMITER_LOOKAHEAD_MS 5.0
/* Release time constant (ms): how slowly the gain comes back after a peak. */
#define OTON_LIMITER_RELEASE_MS 150.0

typedef struct oton_peak_limiter oton_peak_limiter;

/* NULL when out of memory or the format is unusable (channels 1–8, rate 8000–384000). */
oton_peak_limiter *oton_peak_limiter_new(unsigned rate, unsigned channels);
void oton_peak_limiter_free(oton_peak_limiter *limiter);
/* In place; the output is the input `oton_peak_limiter_latency` frames earlier. `active` 0 only
 * delays (the sound passes as it is, without a jump when it is turned on); the leveller keeps it active. */
void oton_peak_limiter_process(oton_peak_limiter *limiter, float *samples, size_t frames, int active);
size_t oton_peak_limiter_latency(const oton_peak_limiter *limiter);
/* The limiter's gain reduction right now (dB, ≤ 0). */
double oton_peak_limiter_reduction_db(const oton_peak_limiter *limiter);

/* ---- the leveller: measurement, gain and limiter together, shared between threads ---- */

typedef struct oton_leveller oton_leveller;

typedef struct oton_leveller_reading {
    int enabled;
    double target_lufs;
    /* The levelling gain now (dB; 0 when off). */
    double gain_db;
    /* The station's loudness as measured so far (LUFS; NAN while unknown). */
    double loudness_lufs;
    /* Seconds of audio that counted towards it (a remembered loudness counts as a full window). */
    double measured_seconds;
    /* The limiter's gain reduction right now (dB, ≤ 0). */
    double limiter_db;
    /* Samples the safety guard changed: not finite when they reached the leveller (made silence), or
     * beyond OTON_LEVELLER_GUARD_LIMIT (clamped before they were measured). */
    uint64_t guarded_samples;
} oton_leveller_reading;

/* The safety guard at the leveller's entry: what an effect, a plugin's filter or a decoder hands on
 * beyond this magnitude (+18 dBFS) is clamped before it is measured, so a broken effect's huge values
 * never teach the leveller a wrong loudness; a non-finite sample becomes 0. The limiter then works
 * whether or not the levelling is on, and its ceiling is a hard bound at the very end: nothing leaves
 * the leveller above OTON_LIMITER_CEILING_DBFS. */
#define OTON_LEVELLER_GUARD_LIMIT 8.0f

/* One reference, for the caller. */
oton_leveller *oton_leveller_new(double target_lufs, double remembered_lufs, int enabled);
oton_leveller *oton_leveller_ref(oton_leveller *leveller);
void oton_leveller_unref(oton_leveller *leveller);
/* The format of what follows: interleaved float. Returns 0 when the format cannot be levelled (the
 * audio then passes untouched). Allocates; call on a format change, not per buffer. */
int oton_leveller_configure(oton_leveller *leveller, unsigned rate, unsigned channels);
void oton_leveller_process(oton_leveller *leveller, float *samples, size_t frames);
void oton_leveller_set_enabled(oton_leveller *leveller, int enabled);
oton_leveller_reading oton_leveller_read(const oton_leveller *leveller);

/* Length of the ramps (ms) at a connection's first sound and at a pause, whether or not the
 * levelling is on: a start or a stop is never a step (a click), nor a burst before the gain. */
#define OTON_LEVELLER_FADE_MS 8
/* Any thread: from the next buffer on, the sound falls to silence over OTON_LEVELLER_FADE_MS and
 * stays silent (the connection is about to be stopped: a pause). */
void oton_leveller_fade_out(oton_leveller *leveller);
/* Any thread: whether the fade-out has left the leveller whole (ramp and limiter delay): all that
 * follows it is silence. Also 1 when no format was ever configured (nothing to fade). */
int oton_leveller_faded_out(const oton_leveller *leveller);
/* Any thread: ends a fade-out; the next audible frame rises over OTON_LEVELLER_FADE_MS again (a
 * held timeshift connection that plays on). */
void oton_leveller_fade_in(oton_leveller *leveller);

/* As oton_leveller_process, for a buffer dated `pts_ns` (its stream time; -1 unknown) lasting
 * `duration_ns`: the leveller then knows how far it has processed and where a fade-out began. */
void oton_leveller_process_at(oton_leveller *leveller, float *samples, size_t frames, int64_t pts_ns, int64_t duration_ns);
/* Any thread: the stream time up to which audio has left the leveller, and where the last fade-out
 * began (each -1 while unknown). What a sink plays now is behind the first by the sink's latency. */
void oton_leveller_timing(const oton_leveller *leveller, int64_t *processed_ns, int64_t *fade_start_ns);

/* ---- GStreamer: the leveller as a buffer probe on a pad carrying F32LE interleaved audio ---- */

/* Adds the probe to `pad` (a GstPad *), which holds a reference of its own until it is removed or
 * the pad is destroyed. Returns the probe id (0: not added). */
unsigned long oton_leveller_attach(void *pad, oton_leveller *leveller);

#ifdef __cplusplus
}
#endif

#endif
