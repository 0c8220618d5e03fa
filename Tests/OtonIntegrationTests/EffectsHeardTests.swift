import Foundation
import IcecastFixture
import OtonHost
import OtonTestSupport
import XCTest

/// Issue 38 §1 as a listener hears it: WAV tones (made by gst-launch-1.0) played by
/// `oton play --audio-sink pulsesink --no-level` into a real PulseAudio null sink, its monitor
/// recorded with parec and measured before and after each effect is switched in with
/// `oton ctl effect NAME bypass off` while playing. Levelling is off, so what changes is the effect's.
final class EffectsHeardTests: XCTestCase {
    static let ampURI = "http://plugin.org.uk/swh-plugins/amp"
    static let lowpassURI = "http://plugin.org.uk/swh-plugins/lowpass_iir"

    func testAnLV2AmplifierAtMinusSixDecibelsIsHeardSixDecibelsDownAndItsBypassTogglesLive() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/lib/lv2/amp-swh.lv2"), "swh-lv2 (scripts/bootstrap installs it)")
        let lab = try Lab(self, tones: ["tone": 1000])
        defer { lab.stop() }
        let oton = try lab.play("Tone", effects: #"[{"lv2": "\#(Self.ampURI)", "parameters": {"gain": -6}, "bypass": true}]"#)
        _ = try lab.sink.waitUntilPlaying(oton)
        let bypassed = try lab.sink.levelFromNow()
        let on = try oton.connect().send(["effect", "amp", "bypass", "off"])
        XCTAssertEqual(on["ok"]?.boolValue, true, "\(on)")
        let amplified = try lab.sink.levelFromNow()
        _ = try oton.connect().send(["effect", "amp", "bypass", "on"])
        let back = try lab.sink.levelFromNow()
        let change = decibels(amplified) - decibels(bypassed)
        print(
            "[measure] LV2 amp at -6 dB: bypassed \(text(bypassed)), on \(text(amplified)) (\(String(format: "%+.2f", change)) dB), bypassed again \(text(back))"
        )
        XCTAssertGreaterThan(bypassed, 0.05, "the tone is heard")
        XCTAssertEqual(change, -6.0, accuracy: 0.1, "the amplifier at -6 dB")
        XCTAssertEqual(decibels(back) - decibels(bypassed), 0, accuracy: 0.1, "the bypass, toggled back live")
        // A parameter changed live: -12 dB.
        _ = try oton.connect().send(["effect", "amp", "bypass", "off"])
        let set = try oton.connect().send(["effect", "amp", "gain", "-12"])
        XCTAssertEqual(set["ok"]?.boolValue, true, "\(set)")
        let twelve = try lab.sink.levelFromNow()
        XCTAssertEqual(decibels(twelve) - decibels(bypassed), -12.0, accuracy: 0.2, "gain -12 set live: \(text(twelve))")
        // Bad requests are refused and change nothing; playback goes on.
        let unknown = try oton.connect().send(["effect", "amp", "gian", "-3"])
        XCTAssertEqual(unknown["ok"]?.boolValue, false)
        XCTAssertTrue("\(unknown)".contains("did you mean") && "\(unknown)".contains("gain"), "\(unknown)")
        let outOfRange = try oton.connect().send(["effect", "amp", "gain", "99"])
        XCTAssertEqual(outOfRange["ok"]?.boolValue, false)
        XCTAssertTrue("\(outOfRange)".contains("-70") && "\(outOfRange)".contains("70"), "\(outOfRange)")
        let noSuch = try oton.connect().send(["effect", "reverb", "bypass", "on"])
        XCTAssertEqual(noSuch["ok"]?.boolValue, false)
        XCTAssertTrue("\(noSuch)".contains("amp"), "names the chain's effects: \(noSuch)")
        let still = try lab.sink.levelFromNow()
        XCTAssertEqual(decibels(still) - decibels(twelve), 0, accuracy: 0.2, "playback goes on as it was: \(text(still))")
    }

    /// Issue 53 §5: swh's lowpass_iir gives its cutoff as a fraction of the sample rate
    /// (`lv2:sampleRate`). oton gave the port that fraction as Hz, and its default made silence; now
    /// its default (0.3375 of the rate: 14.9 kHz at 44.1 kHz) lets both tones of a 200 Hz + 6 kHz
    /// chord through, and `cutoff 1000` (Hz) is accepted and cuts the 6 kHz tone.
    func testTheLowpassFiltersCutoffIsInHertzAndCutsSixKilohertzAtOneKilohertz() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/lib/lv2/lowpass_iir-swh.lv2"), "swh-lv2 (scripts/bootstrap installs it)")
        let lab = try Lab(self, tones: [:], chords: ["Chord": [200, 6000]])
        defer { lab.stop() }
        let oton = try lab.play("Chord", effects: #"[{"name": "lowpass", "lv2": "\#(Self.lowpassURI)", "bypass": true}]"#)
        _ = try lab.sink.waitUntilPlaying(oton)
        let plain = try lab.tonesFromNow([200, 6000])
        let on = try oton.connect().send(["effect", "lowpass", "bypass", "off"])
        XCTAssertEqual(on["ok"]?.boolValue, true, "\(on)")
        let open = try lab.tonesFromNow([200, 6000])
        let set = try oton.connect().send(["effect", "lowpass", "cutoff", "1000"])
        XCTAssertEqual(set["ok"]?.boolValue, true, "\(set)")
        let cut = try lab.tonesFromNow([200, 6000])
        func change(_ after: [Double], _ tone: Int) -> Double { decibels(after[tone]) - decibels(plain[tone]) }
        print(
            String(
                format: "[measure] lowpass_iir: bypassed 200 Hz %.2f dBFS, 6 kHz %.2f dBFS; default cutoff %+.2f, %+.2f dB; cutoff 1000 Hz %+.2f, %+.2f dB",
                decibels(plain[0]), decibels(plain[1]), change(open, 0), change(open, 1), change(cut, 0), change(cut, 1)))
        XCTAssertGreaterThan(plain[0], 0.05, "200 Hz is heard")
        XCTAssertGreaterThan(plain[1], 0.05, "6 kHz is heard")
        XCTAssertEqual(change(open, 0), 0, accuracy: 1.5, "its default cutoff passes 200 Hz")
        XCTAssertEqual(change(open, 1), 0, accuracy: 1.5, "its default cutoff passes 6 kHz")
        XCTAssertEqual(change(cut, 0), 0, accuracy: 1.5, "200 Hz stays at cutoff 1000 Hz")
        XCTAssertLessThan(change(cut, 1), -20, "6 kHz is cut at cutoff 1000 Hz")
        let high = try oton.connect().send(["effect", "lowpass", "cutoff", "30000"])
        XCTAssertEqual(high["ok"]?.boolValue, false, "\(high)")
        XCTAssertTrue("\(high)".contains("21600") && "\(high)".contains("0.45"), "says the range in Hz and as a fraction: \(high)")
    }

    func testTheEqualizersBassCutLowersAHundredHertzToneAndLeavesAOneKilohertzTone() throws {
        let lab = try Lab(self, tones: ["Low": 100, "Mid": 1000])
        defer { lab.stop() }
        let oton = try lab.play("Low", effects: #"[{"name": "eq", "equalizer": "bass-cut", "bypass": true}]"#)
        var changes: [String: Double] = [:]
        for station in ["Low", "Mid"] {
            if station != "Low" { _ = try oton.connect().send(["station", station]) }
            _ = try lab.sink.waitUntilPlaying(oton, station: station)
            _ = try oton.connect().send(["effect", "eq", "bypass", "on"])
            let flat = try lab.sink.levelFromNow()
            let on = try oton.connect().send(["effect", "eq", "bypass", "off"])
            XCTAssertEqual(on["ok"]?.boolValue, true, "\(on)")
            let cut = try lab.sink.levelFromNow()
            changes[station] = decibels(cut) - decibels(flat)
            print("[measure] equalizer bass-cut on \(station): bypassed \(text(flat)), on \(text(cut)): \(String(format: "%+.2f", changes[station]!)) dB")
            XCTAssertGreaterThan(flat, 0.05, "\(station) is heard")
        }
        XCTAssertLessThan(try XCTUnwrap(changes["Low"]), -9, "100 Hz is cut")
        XCTAssertEqual(try XCTUnwrap(changes["Mid"]), 0, accuracy: 1, "1 kHz stays")
        let listing = try oton.connect().send(["effect"])
        XCTAssertTrue("\(listing)".contains("bass-cut"), "\(listing)")
    }

    func testTheExampleCFilterHalvesTheLevel() throws {
        // Built before the sound server starts (a compiler run beside parec once never ended).
        let built = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/examples/c-half-gain/oton_half_gain.c", into: built, name: "oton_half_gain")
        let lab = try Lab(self, tones: ["Tone": 1000])
        defer { lab.stop() }
        let plain = try lab.play("Tone")
        _ = try lab.sink.waitUntilPlaying(plain)
        let before = try lab.sink.levelFromNow()
        // The first oton makes way: asked to quit, and what matters here is that the sink falls silent.
        plain.process.terminate()
        let deadline = Date().addingTimeInterval(30)
        var silent = false
        while !silent, Date() < deadline {
            usleep(200_000)
            let heard = HeardSound(file: lab.sink.file)
            silent = heard.rms(heard.samples.count - HeardSound.samples(0.2)..<heard.samples.count) < 0.001
        }
        XCTAssertTrue(silent, "the first oton stopped playing")
        let filtered = try lab.play("Tone", plugins: #"[{"id": "org.example.half-gain", "path": "\#(library)"}]"#)
        _ = try lab.sink.waitUntilPlaying(filtered)
        let after = try lab.sink.levelFromNow()
        let change = decibels(after) - decibels(before)
        print("[measure] C example filter (gain 0.5): \(text(before)) → \(text(after)): \(String(format: "%+.2f", change)) dB")
        XCTAssertGreaterThan(before, 0.05)
        // Half the gain is -6.02 dB. A loaded sound server's underrun puts a few ms of silence into a
        // measured window and lowers its level (-6.15 dB seen beside two CPU hogs); without the filter
        // the change is 0 dB, far outside this bound.
        XCTAssertEqual(change, -6.02, accuracy: 0.3)
        // ctl effect shows the filter after the effects (issue 53 §2): it runs, its budget, its time per buffer.
        let effects = try filtered.connect().send(["effect"])
        let entry = effects["data"]?["effects"]?.arrayValue?.first { $0["name"]?.stringValue == "org.example.half-gain" }
        XCTAssertEqual(entry?["filter"]?.boolValue, true, "\(effects)")
        XCTAssertEqual(entry?["running"]?.boolValue, true, "\(effects)")
        XCTAssertGreaterThan(entry?["buffers"]?.numberValue ?? 0, 0, "\(effects)")
        let budget = try XCTUnwrap(entry?["budget_ms"]?.numberValue, "\(effects)")
        let average = try XCTUnwrap(entry?["average_ms"]?.numberValue, "\(effects)")
        XCTAssertGreaterThanOrEqual(budget, 2, "half a buffer, at least 2 ms")
        XCTAssertLessThan(average, budget, "\(effects)")
        let shown = effects["text"]?.stringValue ?? ""
        XCTAssertTrue(shown.contains("org.example.half-gain  plugin filter  on  · budget ") && shown.contains(" ms per buffer on average over "), shown)
        // It is shown alone by its id, and not changed there.
        let alone = try filtered.connect().send(["effect", "org.example.half-gain"])
        XCTAssertEqual(alone["data"]?["effects"]?.arrayValue?.count, 1, "\(alone)")
        let refused = try filtered.connect().send(["effect", "org.example.half-gain", "bypass", "on"])
        XCTAssertEqual(refused["ok"]?.boolValue, false, "\(refused)")
        XCTAssertTrue(refused["error"]?.stringValue?.contains("is a plugin's filter: it cannot be changed here") == true, "\(refused)")
    }

    /// Issue 54 §10: a NaN from a plugin's filter reached the sink as a full-scale sample, past the
    /// limiter. Nothing a filter makes may reach the speakers above the limiter's ceiling (−1.5 dBFS),
    /// with levelling off too; the status counts what the guard did and names the filter.
    func testBrokenSamplesFromAFilterNeverReachTheSpeakersAndTheStatusNamesTheFilter() throws {
        let built = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(
            TestPaths.root + "/Tests/Fixtures/broken_samples_filter_plugin.c", into: built, name: "broken_samples", libraries: ["m"])
        let lab = try Lab(self, tones: ["Tone": 1000])
        defer { lab.stop() }
        let oton = try lab.play("Tone", plugins: #"[{"id": "org.oton.test.broken-samples", "path": "\#(library)"}]"#)
        let start = try lab.sink.waitUntilPlaying(oton)
        let heard = try lab.sink.recorded(from: start, seconds: 4)
        let peak = heard.peak(0..<heard.samples.count)
        let ceiling = pow(10, -1.5 / 20)
        print(String(format: "[measure] broken filter: peak heard %.3f (%.2f dBFS), ceiling %.3f", peak, decibels(peak), ceiling))
        XCTAssertGreaterThan(heard.steadyLevel(0..<heard.samples.count), 0.05, "the tone plays on")
        XCTAssertLessThanOrEqual(peak, ceiling + 0.005, "nothing above the limiter's ceiling, levelling off as it is here")
        let status = try oton.connect().send(["status"])
        let guarded = status["data"]?["guarded"]
        XCTAssertGreaterThan(guarded?["samples"]?.int64Value ?? 0, 0, "the status counts what the guard did: \(status)")
        XCTAssertTrue("\(guarded?["by"] ?? .null)".contains("org.oton.test.broken-samples"), "and names the filter: \(status)")
    }

    func testAFilterThatSleepsIsBypassedWithALineNamingItAndPlaybackGoesOnWithoutAGap() throws {
        let built = try TemporaryDirectory(self)
        let library = try CPluginBuilder.build(TestPaths.root + "/Tests/Fixtures/sleeping_filter_plugin.c", into: built, name: "sleeping_filter")
        let lab = try Lab(self, tones: ["Tone": 1000])
        defer { lab.stop() }
        let start = HeardSound.count(in: lab.sink.file)
        let oton = try lab.play("Tone", plugins: #"[{"id": "org.oton.test.sleeping-filter", "path": "\#(library)"}]"#)
        _ = try lab.sink.waitUntilPlaying(oton)
        let level = try lab.sink.levelFromNow(settle: 1, seconds: 3)
        XCTAssertGreaterThan(level, 0.05, "the tone plays on (the filter would silence it)")
        let deadline = Date().addingTimeInterval(30)
        var log = ""
        while Date() < deadline {
            log = oton.directory.read("stderr.log")
            if log.contains("org.oton.test.sleeping-filter") && log.contains("bypassed") { break }
            usleep(100_000)
        }
        XCTAssertTrue(log.contains("org.oton.test.sleeping-filter") && log.contains("bypassed"), "the log names the filter: \(log)")
        // From the first sound on, no stretch of silence longer than 50 ms.
        let heard = HeardSound(file: lab.sink.file)
        let window = HeardSound.samples(0.01)
        let first = try XCTUnwrap(stride(from: start, to: heard.samples.count - window, by: window).first { heard.rms($0..<$0 + window) > 0.05 })
        var longest = 0, run = 0
        for from in stride(from: first, to: heard.samples.count - window, by: window) {
            run = heard.rms(from..<from + window) < 0.01 ? run + 1 : 0
            longest = max(longest, run)
        }
        print(
            "[measure] sleeping filter: longest silence after the first sound \(longest * 10) ms over \(String(format: "%.1f", HeardSound.seconds(heard.samples.count - first))) s"
        )
        XCTAssertLessThanOrEqual(longest * 10, 50, "no audible gap over 50 ms")
        let effects = try oton.connect().send(["effect"])
        // Every filter's entry has "overran" now: this one's must be true, and its line say it.
        let entry = effects["data"]?["effects"]?.arrayValue?.first { $0["name"]?.stringValue == "org.oton.test.sleeping-filter" }
        XCTAssertEqual(entry?["overran"]?.boolValue, true, "ctl effect says it: \(effects)")
        XCTAssertTrue(effects["text"]?.stringValue?.contains("bypassed: it overran its time budget") == true, "\(effects)")
    }
}

private func text(_ fraction: Double) -> String { String(format: "%.2f dBFS", decibels(fraction)) }

/// WAV tones of 90 s (sines at 0.25 of full scale, stereo 48 kHz) and chords (sines at 0.2 each,
/// stereo 44.1 kHz: a rate other than the sink's) as stations, a PulseAudio null sink recorded by parec.
private struct Lab {
    let testCase: XCTestCase
    let pulse: PulseAudioServer
    let directory: TemporaryDirectory
    let sink: SinkRecording
    let stations: String

    init(_ testCase: XCTestCase, tones: [String: Int], chords: [String: [Int]] = [:]) throws {
        try XCTSkipUnless(PulseAudioServer.isInstalled, "pulseaudio and pulseaudio-utils (scripts/bootstrap installs them)")
        self.testCase = testCase
        directory = try TemporaryDirectory(testCase)
        var list: [String] = []
        for (name, frequency) in tones.sorted(by: { $0.key < $1.key }) {
            let file = directory.file("\(name).wav")
            let made = try runProcess(
                "/usr/bin/env",
                [
                    "gst-launch-1.0", "-q", "audiotestsrc", "wave=sine", "freq=\(frequency)", "volume=0.25",
                    "num-buffers=900", "samplesperbuffer=4800", "!",
                    "audio/x-raw,format=S16LE,rate=48000,channels=2", "!", "wavenc", "!", "filesink", "location=\(file)",
                ])
            guard made.status == 0 else { throw FixtureError("gst-launch-1.0 could not make \(file): \(made.stderr)") }
            list.append(#"{"name": "\#(name)", "url": "file://\#(file)"}"#)
        }
        for (name, frequencies) in chords.sorted(by: { $0.key < $1.key }) {
            let file = directory.file("\(name).wav")
            try chordWAV(frequencies, rate: 44_100, seconds: 90).write(to: URL(fileURLWithPath: file))
            list.append(#"{"name": "\#(name)", "url": "file://\#(file)"}"#)
        }
        stations = list.joined(separator: ", ")
        pulse = try PulseAudioServer(directory: directory.file("pulse"))
        sink = SinkRecording(file: directory.file("monitor.raw"))
        try pulse.record(into: sink.file)
    }

    func stop() {
        pulse.stop()
    }

    func play(_ station: String, effects: String = "[]", plugins: String = "[]") throws -> OtonProcess {
        let config = #"{"stations": [\#(stations)], "plugins": \#(plugins), "effects": \#(effects)}"#
        let oton = try OtonProcess(
            testCase, arguments: ["play", station, "--audio-sink", "pulsesink", "--no-tui", "--no-level"],
            plugins: config, environment: ["PULSE_SERVER": pulse.environment["PULSE_SERVER"]])
        _ = try oton.connect(timeout: 30)
        return oton
    }

    /// Each tone's amplitude (fraction of full scale) in 2 s recorded from now on, after a settling second.
    func tonesFromNow(_ frequencies: [Int]) throws -> [Double] {
        let heard = try sink.recorded(from: HeardSound.count(in: sink.file), seconds: 3)
        let samples = heard.samples[HeardSound.samples(1)...].map { Double($0) / 32768 }
        return frequencies.map { goertzelAmplitude(samples, frequency: Double($0), rate: Double(PulseAudioServer.rate)) }
    }
}

/// A sine's amplitude at `frequency` in `samples` (the Goertzel algorithm: one bin of a DFT).
private func goertzelAmplitude(_ samples: [Double], frequency: Double, rate: Double) -> Double {
    let coefficient = 2 * cos(2 * Double.pi * frequency / rate)
    var previous = 0.0, beforePrevious = 0.0
    for sample in samples {
        let value = sample + coefficient * previous - beforePrevious
        beforePrevious = previous
        previous = value
    }
    let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    return 2 * power.squareRoot() / Double(samples.count)
}

/// A stereo S16LE WAV of sines at 0.2 of full scale each.
private func chordWAV(_ frequencies: [Int], rate: Int, seconds: Int) -> Data {
    let frames = rate * seconds
    var data = Data()
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    data.append(contentsOf: Array("RIFF".utf8))
    append(UInt32(36 + frames * 4))
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    append(UInt32(16))
    append(UInt16(1))
    append(UInt16(2))
    append(UInt32(rate))
    append(UInt32(rate * 4))
    append(UInt16(4))
    append(UInt16(16))
    data.append(contentsOf: Array("data".utf8))
    append(UInt32(frames * 4))
    var samples = [Int16](repeating: 0, count: frames * 2)
    for frame in 0..<frames {
        let time = Double(frame) / Double(rate)
        let value = frequencies.reduce(0.0) { $0 + 0.2 * sin(2 * Double.pi * Double($1) * time) }
        samples[frame * 2] = Int16(value * 32767)
        samples[frame * 2 + 1] = samples[frame * 2]
    }
    samples.withUnsafeBytes { data.append(contentsOf: $0) }
    return data
}
