import Foundation
import OtonEffects
import OtonHost
import XCTest

/// plugins.json's `effects` (docs/effects.md): read as written, and checked against what is
/// installed by ``EffectCatalogue`` with errors that say what to write instead.
final class EffectsConfigTests: XCTestCase {
    static let ampURI = "http://plugin.org.uk/swh-plugins/amp"

    private func parse(_ effects: String) throws -> [EffectSettings] {
        try ConfigLoader.parse(Data(#"{"stations": [], "effects": \#(effects)}"#.utf8), file: "p.json").effects
    }

    private func assertRefused(_ effects: String, saying words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(effects), effects, file: file, line: line) { error in
            for word in words { XCTAssertTrue("\(error)".contains(word), "\"\(word)\" in: \(error)", file: file, line: line) }
        }
    }

    func testTheChainIsReadInOrderWithNamesPresetsParametersAndBypass() throws {
        let chain = try parse(
            #"""
            [{"equalizer": "bass-cut"},
             {"lv2": "http://plugin.org.uk/swh-plugins/amp", "parameters": {"gain": -6}, "bypass": true},
             {"name": "voice", "equalizer": "flat", "parameters": {"1khz": 3}}]
            """#)
        XCTAssertEqual(chain.map(\.name), ["equalizer", "amp", "voice"])
        XCTAssertEqual(chain[0].kind, .equalizer)
        XCTAssertEqual(chain[0].preset, "bass-cut")
        XCTAssertEqual(chain[0].parameters["30hz"], -12)
        XCTAssertEqual(chain[0].parameters["1khz"], 0)
        XCTAssertEqual(chain[1].kind, .lv2(uri: Self.ampURI))
        XCTAssertEqual(chain[1].parameters, ["gain": -6])
        XCTAssertTrue(chain[1].bypass)
        XCTAssertEqual(chain[2].parameters["1khz"], 3)
        XCTAssertNil(chain[2].preset, "set band by band")
        XCTAssertEqual(try parse("[]"), [])
        XCTAssertEqual(try ConfigLoader.parse(Data(#"{"stations": []}"#.utf8), file: "p.json").effects, [])
    }

    func testMistakesNameTheirPlaceAndWhatToWrite() {
        assertRefused(#"[{"equalizer": "bass-cutt"}]"#, saying: ["effects[0].equalizer", "bass-cut", "voice"])
        assertRefused(#"[{"equalizer": "flat", "bypas": true}]"#, saying: ["effects[0].bypas", "did you mean", "bypass"])
        assertRefused(#"[{"equalizer": "flat", "parameters": {"1khz": 30}}]"#, saying: ["effects[0].parameters.1khz", "-24", "12"])
        assertRefused(#"[{"equalizer": "flat", "parameters": {"1kz": 3}}]"#, saying: ["1kz", "did you mean", "1khz"])
        assertRefused(#"[{"equalizer": "flat"}, {"equalizer": "voice"}]"#, saying: ["effects[1].name", "equalizer", "twice"].dropLast())
        assertRefused(#"[{"name": "x"}]"#, saying: ["effects[0]", "equalizer", "lv2"])
        assertRefused(#"[{"lv2": "urn:x", "parameters": {"gain": "loud"}}]"#, saying: ["effects[0].parameters.gain", "number"])
        assertRefused(#"{"equalizer": "flat"}"#, saying: ["effects", "array"])
    }

    func testPresetsCoverEveryBand() {
        for (name, gains) in Equalizer.presets {
            XCTAssertEqual(gains.count, Equalizer.bandNames.count, name)
            XCTAssertTrue(gains.allSatisfy(Equalizer.gainRange.contains), name)
        }
        XCTAssertTrue(["flat", "bass-cut", "bass-boost", "voice"].allSatisfy { Equalizer.presets[$0] != nil })
    }

    func testTheCatalogueRefusesWhatIsNotInstalledUnknownParametersAndValuesOutOfRange() throws {
        let missing = EffectCatalogue.problems(of: EffectSettings(name: "x", kind: .lv2(uri: "urn:oton:no-such-plugin")))
        XCTAssertEqual(missing, [.notInstalled("urn:oton:no-such-plugin")])
        XCTAssertTrue(missing[0].description.contains("oton effects list"), missing[0].description)
        let usable = EffectCatalogue.usable([EffectSettings(name: "x", kind: .lv2(uri: "urn:oton:no-such-plugin")), EffectSettings.equalizer(preset: "voice")!])
        XCTAssertEqual(usable.effects.map(\.name), ["equalizer"], "the rest of the chain runs")
        XCTAssertTrue(usable.problems.first?.contains("playback goes on") ?? false, "\(usable.problems)")

        try XCTSkipUnless(EffectCatalogue.lv2Plugin(uri: Self.ampURI) != nil, "swh-lv2 (scripts/bootstrap installs it)")
        let amp = try XCTUnwrap(EffectCatalogue.lv2Plugin(uri: Self.ampURI))
        XCTAssertNil(amp.unsupported)
        XCTAssertEqual(amp.parameters.map(\.symbol), ["gain"])
        XCTAssertEqual(amp.parameters[0].range, -70...70)
        XCTAssertEqual(EffectCatalogue.problems(of: EffectSettings(name: "amp", kind: .lv2(uri: Self.ampURI), parameters: ["gain": -6])), [])
        let typo = EffectCatalogue.problems(of: EffectSettings(name: "amp", kind: .lv2(uri: Self.ampURI), parameters: ["gian": -6]))
        XCTAssertTrue(typo.first?.description.contains("did you mean \"gain\"") ?? false, "\(typo)")
        let loud = EffectCatalogue.problems(of: EffectSettings(name: "amp", kind: .lv2(uri: Self.ampURI), parameters: ["gain": 100]))
        XCTAssertEqual(loud, [.outOfRange(effect: "amp", "gain", 100, -70...70)])
    }

    /// Issue 53 §5: swh's lowpass_iir gives its cutoff as a fraction of the sample rate
    /// (`lv2:sampleRate`); it is read so, said in Hz, and the processor hands the plugin Hz.
    func testASampleRatePortIsReadAsAFractionOfTheRateAndTakesHertz() throws {
        let uri = "http://plugin.org.uk/swh-plugins/lowpass_iir"
        let found = oton_lv2_find(uri)
        try XCTSkipUnless(found >= 0, "swh-lv2 (scripts/bootstrap installs it)")
        let index = UInt32(found)
        var cutoff = oton_lv2_control_info()
        var stages = oton_lv2_control_info()
        XCTAssertEqual(oton_lv2_control(index, 0, &cutoff), 1)
        XCTAssertEqual(oton_lv2_control(index, 1, &stages), 1)
        XCTAssertEqual(String(cString: cutoff.symbol), "cutoff")
        XCTAssertEqual(cutoff.sample_rate, 1, "lv2:sampleRate")
        XCTAssertEqual(stages.sample_rate, 0)
        XCTAssertEqual(cutoff.minimum, 0.0001, accuracy: 1e-7)
        XCTAssertEqual(cutoff.maximum, 0.45, accuracy: 1e-6)
        let parameter = try XCTUnwrap(EffectCatalogue.lv2Plugin(uri: uri)?.parameters.first { $0.symbol == "cutoff" })
        XCTAssertEqual(parameter.range.lowerBound, 4.8, accuracy: 1e-3, "Hz at 48 kHz")
        XCTAssertEqual(parameter.range.upperBound, 21_600, accuracy: 0.1)
        XCTAssertEqual(parameter.defaultValue, 0.337525 * 48_000, accuracy: 0.5)
        XCTAssertEqual(parameter.rateFractions?.range.upperBound ?? 0, 0.45, accuracy: 1e-6)
        XCTAssertNil(EffectCatalogue.check("cutoff", 1000, among: [parameter], effect: "lowpass"), "1000 Hz is in range")
        let high = try XCTUnwrap(EffectCatalogue.check("cutoff", 30_000, among: [parameter], effect: "lowpass"))
        XCTAssertTrue(high.description.contains("21600") && high.description.contains("0.45"), high.description)
        // The processor at 44.1 kHz, cutoff 1000 Hz: a 6 kHz tone is cut, a 200 Hz tone stays.
        func level(_ frequency: Double, cutoff hertz: Float?) throws -> Double {
            let effect = try XCTUnwrap(oton_effect_new_lv2(index))
            defer { oton_effect_unref(effect) }
            XCTAssertEqual(oton_effect_configure(effect, 44_100, 1), 1)
            if let hertz { XCTAssertEqual(oton_effect_set_control(effect, 0, hertz), 1) }
            var samples = (0..<44_100).map { Float(0.25 * sin(2 * Double.pi * frequency * Double($0) / 44_100)) }
            oton_effect_process(effect, &samples, samples.count)
            let tail = samples[22_050...]
            return (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tail.count)).squareRoot() * 2.squareRoot()
        }
        let low = try level(200, cutoff: 1000), cut = try level(6000, cutoff: 1000), open = try level(6000, cutoff: nil)
        print(String(format: "[measure] lowpass_iir at 44.1 kHz, cutoff 1000 Hz: 200 Hz at %.3f, 6 kHz at %.4f; at its default, 6 kHz at %.3f", low, cut, open))
        XCTAssertEqual(low, 0.25, accuracy: 0.05, "200 Hz passes")
        XCTAssertLessThan(20 * log10(cut / 0.25), -20, "6 kHz is cut")
        XCTAssertEqual(open, 0.25, accuracy: 0.05, "its default (0.3375 of the rate: 14.9 kHz) lets 6 kHz through")
    }

    /// The processor on its own, as the probe runs it: an LV2 amplifier at -6 dB, per channel of a
    /// stereo buffer, and its bypass; a filter over its budget is bypassed for good.
    func testTheProcessorRunsAnLV2PluginPerChannelAndBypassesAFilterThatOverruns() throws {
        if let index = (0..<oton_lv2_count()).first(where: { index in
            var info = oton_lv2_plugin_info()
            return oton_lv2_plugin(index, &info) != 0 && String(cString: info.uri) == Self.ampURI
        }) {
            let effect = try XCTUnwrap(oton_effect_new_lv2(index))
            defer { oton_effect_unref(effect) }
            XCTAssertEqual(oton_effect_configure(effect, 48_000, 2), 1)
            XCTAssertEqual(oton_effect_set_control(effect, 0, -6), 1)
            var samples = [Float](repeating: 0.5, count: 2 * 3000)
            oton_effect_process(effect, &samples, 3000)
            XCTAssertEqual(Double(samples[0]), 0.5 * pow(10, -6.0 / 20), accuracy: 1e-4)
            XCTAssertEqual(Double(samples[5999]), 0.5 * pow(10, -6.0 / 20), accuracy: 1e-4, "both channels, past one block")
            oton_effect_set_bypass(effect, 1)
            var untouched = [Float](repeating: 0.5, count: 2 * 100)
            oton_effect_process(effect, &untouched, 100)
            XCTAssertEqual(untouched[0], 0.5)
            XCTAssertEqual(oton_effect_set_control(effect, 0, 500), 1)
            XCTAssertEqual(oton_effect_control(effect, 0), 70, "clamped to the range")
        }
        let sleeper: oton_effect_filter_fn = { _, samples, frames, channels, _ in
            usleep(30_000)
            for index in 0..<frames * Int(channels) { samples?[index] = 0 }
        }
        let filter = try XCTUnwrap(oton_effect_new_filter(sleeper, nil, "org.example.sleeper"))
        defer { oton_effect_unref(filter) }
        XCTAssertEqual(oton_effect_configure(filter, 48_000, 2), 1)
        var buffer = [Float](repeating: 0.25, count: 2 * 480)  // 10 ms: a budget of 5 ms
        XCTAssertEqual(oton_effect_budget_ns(480, 48_000), 5_000_000)
        oton_effect_process(filter, &buffer, 480)
        let reading = oton_effect_read(filter)
        XCTAssertEqual(reading.overran, 1)
        XCTAssertEqual(reading.bypassed, 1)
        XCTAssertGreaterThan(reading.overrun_ms, 25)
        var next = [Float](repeating: 0.25, count: 2 * 480)
        oton_effect_process(filter, &next, 480)
        XCTAssertEqual(next[0], 0.25, "not called again")
        oton_effect_set_bypass(filter, 0)
        XCTAssertEqual(oton_effect_read(filter).bypassed, 1, "an overrun filter stays bypassed")
    }
}
