/* The gain logic: a gated, slowly forgetting loudness estimate (EBU R128's gates on momentary
 * blocks) and a gain that follows it at a bounded rate. */
#include "oton_leveller.h"

#include <math.h>

static double energy_of(double lufs) { return pow(10.0, (lufs + 0.691) / 10.0); }
static double lufs_of(double energy) { return -0.691 + 10.0 * log10(energy); }

/* A mean that averages plainly over the first window, then forgets exponentially. */
static void take_in(double *energy, double *seconds, double value, double step) {
    *seconds += step;
    double span = *seconds < OTON_LEVEL_WINDOW_SECONDS ? *seconds : OTON_LEVEL_WINDOW_SECONDS;
    *energy += (value - *energy) * (step / span);
}

void oton_level_gain_init(oton_level_gain *gain, double target_lufs, double remembered_lufs) {
    gain->target_lufs = target_lufs;
    gain->gated_energy = 0;
    gain->ungated_energy = 0;
    gain->gated_seconds = 0;
    gain->ungated_seconds = 0;
    gain->remembered = 0;
    gain->gain_db = 0;
    if (isfinite(remembered_lufs) && remembered_lufs > OTON_LEVEL_ABSOLUTE_GATE_LUFS) {
        gain->gated_energy = gain->ungated_energy = energy_of(remembered_lufs);
        gain->gated_seconds = gain->ungated_seconds = OTON_LEVEL_WINDOW_SECONDS;
        gain->remembered = 1;
        gain->gain_db = oton_level_gain_desired(gain);
    }
}

double oton_level_gain_loudness(const oton_level_gain *gain) {
    return gain->gated_energy > 0 ? lufs_of(gain->gated_energy) : NAN;
}

double oton_level_gain_desired(const oton_level_gain *gain) {
    if (!(gain->gated_energy > 0)) return 0;
    double wanted = gain->target_lufs - lufs_of(gain->gated_energy);
    if (wanted > OTON_LEVEL_MAX_BOOST_DB) return OTON_LEVEL_MAX_BOOST_DB;
    if (wanted < OTON_LEVEL_MAX_CUT_DB) return OTON_LEVEL_MAX_CUT_DB;
    return wanted;
}

double oton_level_gain_step(oton_level_gain *gain, double momentary_lufs, double seconds) {
    if (!(seconds > 0)) return gain->gain_db;
    if (isfinite(momentary_lufs) && momentary_lufs > OTON_LEVEL_ABSOLUTE_GATE_LUFS) {
        double energy = energy_of(momentary_lufs);
        take_in(&gain->ungated_energy, &gain->ungated_seconds, energy, seconds);
        if (momentary_lufs > lufs_of(gain->ungated_energy) - OTON_LEVEL_RELATIVE_GATE_LU) {
            take_in(&gain->gated_energy, &gain->gated_seconds, energy, seconds);
        }
    }
    int settling = !gain->remembered && gain->gated_seconds < OTON_LEVEL_SETTLING_SECONDS;
    double most = (settling ? OTON_LEVEL_SETTLING_DB_PER_SECOND : OTON_LEVEL_SLEW_DB_PER_SECOND) * seconds;
    double change = oton_level_gain_desired(gain) - gain->gain_db;
    if (change > most) change = most;
    if (change < -most) change = -most;
    gain->gain_db += change;
    return gain->gain_db;
}
