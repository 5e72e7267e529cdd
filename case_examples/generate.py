"""Generate the synthetic background data of the worked cases (deterministic).

Run from anywhere: ``python case_examples/generate.py``. Each case has its own
fixed seed; the files are rewritten byte for byte identical. The data are
synthetic: they illustrate the method and come from no real casework.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _write(path: Path, values: np.ndarray) -> None:
    """One score per line, four decimals (the resolution of the simulated systems)."""
    path.write_text("".join(f"{v:.4f}\n" for v in values), encoding="utf-8")


def voice() -> None:
    """Voice comparison scores like Ramos' simulated case: SS about 4-7, DS about 2-5."""
    rng = np.random.default_rng(1000)
    ss = rng.normal(5.5, 0.6, 300)
    ds = rng.normal(3.4, 0.65, 3000)
    _write(HERE / "voice" / "ss.csv", ss)
    _write(HERE / "voice" / "ds.csv", ds)


def small_background() -> None:
    """A new method with only 12 SS and 40 DS validation comparisons."""
    rng = np.random.default_rng(1200)
    ss = rng.normal(2.0, 1.0, 12)
    ds = rng.normal(-1.0, 1.0, 40)
    _write(HERE / "small-background" / "ss.csv", ss)
    _write(HERE / "small-background" / "ds.csv", ds)


def glass_distance() -> None:
    """Standardised distances between glass measurements: small for SS, large for DS."""
    rng = np.random.default_rng(1400)
    ss = np.sqrt(rng.chisquare(3, 200))          # |N(0, I_3)|: same-source distances
    ds = rng.lognormal(np.log(5.0), 0.6, 2000)    # different-source distances
    _write(HERE / "glass-distance" / "ss.csv", ss)
    _write(HERE / "glass-distance" / "ds.csv", ds)


def glass_measurements() -> None:
    """Glass refractive index and LA-ICP-MS composition (log10 ppm of Fe, Sr, Zr) of 160
    float-glass windows from three manufacturers, 4 fragments measured twice each; and a
    case: 3 fragments of a broken window (K1) and 2 fragments from a jacket (Q1) that came
    from that window, each measured twice."""
    rng = np.random.default_rng(1600)
    centres = np.array([[1.5176, 2.95, 1.75, 1.55],    # manufacturer A (half the windows)
                        [1.5190, 3.10, 1.80, 1.70],    # B
                        [1.5205, 2.75, 1.65, 1.40]])   # C
    between_sd = np.array([0.0004, 0.04, 0.03, 0.05])
    within_sd = np.array([0.00006, 0.03, 0.025, 0.04])
    within_corr = np.array([[1.0, 0.1, 0.1, 0.0], [0.1, 1.0, 0.3, 0.2],
                            [0.1, 0.3, 1.0, 0.2], [0.0, 0.2, 0.2, 1.0]])
    within_cov = within_corr * np.outer(within_sd, within_sd)

    def window(maker: int) -> np.ndarray:
        return centres[maker] + rng.normal(size=4) * between_sd

    def measure(theta: np.ndarray, fragments: int) -> np.ndarray:
        # each fragment's own offset plus two replicate readings of it
        offsets = rng.multivariate_normal(np.zeros(4), within_cov * 0.5, size=fragments)
        readings = rng.multivariate_normal(np.zeros(4), within_cov * 0.5, size=fragments * 2)
        return theta + np.repeat(offsets, 2, axis=0) + readings

    def rows(source: str, values: np.ndarray) -> str:
        return "".join(
            f"{source},f{k // 2 + 1},{v[0]:.6f},{v[1]:.4f},{v[2]:.4f},{v[3]:.4f}\n"
            for k, v in enumerate(values))

    folder = HERE / "glass-measurements"
    makers = rng.choice(3, size=160, p=[0.5, 0.3, 0.2])
    text = "source,item,ri,log_fe,log_sr,log_zr\n" + "".join(
        rows(f"W{i + 1:03d}", measure(window(m), 4)) for i, m in enumerate(makers))
    (folder / "database.csv").write_text(text, encoding="utf-8")
    crime_window = window(1)
    items = ("item,fragment,ri,log_fe,log_sr,log_zr\n"
             + rows("K1", measure(crime_window, 3)) + rows("Q1", measure(crime_window, 2)))
    (folder / "items.csv").write_text(items, encoding="utf-8")


def voice_fusion() -> None:
    """Two systems scoring the same voice comparisons of 40 speakers: an automatic system
    (strong) and a formant-based system (weaker, correlated 0.3 with it), one labelled file
    with both scores and the two speakers of each comparison."""
    rng = np.random.default_rng(1800)
    speakers = [f"spk{i + 1:02d}" for i in range(40)]
    cov = [[1.0, 0.3], [0.3, 1.0]]
    effect = rng.normal(0.0, 0.4, (40, 2))   # each speaker's own shift of both scores
    rows = []
    for i, spk in enumerate(speakers):
        for z in rng.multivariate_normal([0.0, 0.0], cov, 8):
            asr, formants = 5.5 + 0.8 * z[0] + effect[i, 0], 1.0 + z[1] + effect[i, 1]
            rows.append(f"ss,{asr:.4f},{formants:.4f},{spk},{spk}\n")
    pairs = rng.choice(40, size=(1500, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]][:1200]
    for (a, b), z in zip(pairs, rng.multivariate_normal([0.0, 0.0], cov, len(pairs)),
                         strict=True):
        shift = 0.5 * (effect[a] + effect[b])
        asr, formants = 3.2 + 0.8 * z[0] + shift[0], -0.5 + z[1] + shift[1]
        rows.append(f"ds,{asr:.4f},{formants:.4f},{speakers[a]},{speakers[b]}\n")
    text = "label,asr,formants,source_a,source_b\n" + "".join(rows)
    (HERE / "voice-fusion" / "scores.csv").write_text(text, encoding="utf-8")


#: Vergeer et al. (2016)'s breath-analyser example: 1,000 tests of drivers below the legal
#: limit (10 positive) and 100 of drivers above it (90 positive); the analyser reports an LR
#: of 1,000 for a positive result and 0.101 for a negative one
BREATH_TESTS = {"hd": (1000, 10), "hp": (100, 90)}
BREATH_CLAIMED_LR = {"positive": 1000.0, "negative": 0.101}


def breath_analyser(folder: Path | None = None) -> None:
    """Breath-analyser outputs: the published validation counts of Vergeer et al. (2016)
    (``outcomes.csv``, no randomness) and, seeded, 1,200 drivers' evidential breath readings
    (µg/L) with the blood test's verdict (above or below the limit of 0.5 g/L, Hp / Hd) and
    the log10 LR the analyser's software claims for each reading (``readings.csv``).

    Readings: blood alcohol of the tested drivers log-normal (median 0.42 g/L, log-sd 0.55);
    each person's blood:breath ratio 2,300 with a log-sd of 0.09; 2 % instrument error. The
    software's claimed log10 LR is (reading - 217) / 12: it grows by 1 every 12 µg/L, which
    ignores the spread of the blood:breath ratio (overconfident, as the validation shows)."""
    folder = folder or HERE / "breath-analyser"
    rows = []
    for label, (n, positive) in BREATH_TESTS.items():
        for k in range(n):
            result = "positive" if k < positive else "negative"
            lr = BREATH_CLAIMED_LR[result]
            rows.append(f"{label},{result},{np.log10(lr):.12f}\n")
    (folder / "outcomes.csv").write_text("label,result,log10_lr\n" + "".join(rows),
                                         encoding="utf-8")
    rng = np.random.default_rng(2000)
    n = 1200
    blood = np.round(rng.lognormal(np.log(0.42), 0.55, n), 3)    # g/L, as reported
    ratio = 2300.0 * rng.lognormal(0.0, 0.09, n)                 # blood:breath
    reading = np.round(blood / ratio * 1e6 * (1.0 + rng.normal(0.0, 0.02, n)), 1)  # µg/L
    claimed = (reading - 217.0) / 12.0
    text = "driver,label,blood,reading,log10_lr\n" + "".join(
        f"D{i + 1:04d},{'hp' if b > 0.5 else 'hd'},{b:.3f},{r:.1f},{c:.4f}\n"
        for i, (b, r, c) in enumerate(zip(blood, reading, claimed, strict=True)))
    (folder / "readings.csv").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    voice()
    small_background()
    glass_distance()
    glass_measurements()
    voice_fusion()
    breath_analyser()
