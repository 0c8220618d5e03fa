import Foundation
import OtonEffects
import OtonEvents
import OtonSupport

/// A parameter of an effect: an LV2 control port or an equalizer band.
public struct EffectParameter: Equatable, Sendable {
    public var symbol: String
    public var name: String
    public var range: ClosedRange<Double>
    public var defaultValue: Double
    /// An LV2 `lv2:sampleRate` port (a filter's cutoff): its value is in Hz, and the plugin gives its
    /// range and default as fractions of the sample rate (these). `range` and `defaultValue` are
    /// then in Hz at ``referenceRate``; a stream of another rate gets the fractions times its rate.
    public var rateFractions: RateFractions? = nil

    public struct RateFractions: Equatable, Sendable {
        public var range: ClosedRange<Double>
        public var defaultValue: Double
    }

    /// The rate a sample-rate parameter's range and default are said in Hz at.
    public static let referenceRate = 48_000.0
}

/// An installed LV2 plugin as `oton effects list` shows it.
public struct LV2PluginInfo: Equatable, Sendable {
    public var uri: String
    public var name: String
    public var audioInputs: Int
    public var audioOutputs: Int
    /// nil when oton can host it; else why not (a feature it needs, a port it has).
    public var unsupported: String?
    public var parameters: [EffectParameter]
}

/// What effects exist here: the built-in equalizer and the installed LV2 plugins (read with lilv, from
/// LV2_PATH or the system's folders: a chain's plugin from its own bundle alone, the whole list only for
/// `oton effects list`), and whether an effect's settings fit them — the one
/// owner of "is this effect, parameter or value right".
public enum EffectCatalogue {
    /// Every installed LV2 plugin, sorted by URI (the first call reads the catalogue).
    public static func lv2Plugins() -> [LV2PluginInfo] {
        (0..<oton_lv2_count()).compactMap(lv2Plugin(at:)).sorted { $0.uri < $1.uri }
    }

    static func lv2Plugin(at index: UInt32) -> LV2PluginInfo? {
        var info = oton_lv2_plugin_info()
        guard oton_lv2_plugin(index, &info) != 0 else { return nil }
        let parameters = (0..<info.controls).compactMap { control -> EffectParameter? in
            var port = oton_lv2_control_info()
            guard oton_lv2_control(index, control, &port) != 0 else { return nil }
            let range = Double(port.minimum)...Double(port.maximum)
            let symbol = String(cString: port.symbol), name = String(cString: port.name)
            guard port.sample_rate != 0 else { return EffectParameter(symbol: symbol, name: name, range: range, defaultValue: Double(port.default_value)) }
            let rate = EffectParameter.referenceRate
            return EffectParameter(
                symbol: symbol, name: name, range: range.lowerBound * rate...range.upperBound * rate, defaultValue: Double(port.default_value) * rate,
                rateFractions: .init(range: range, defaultValue: Double(port.default_value)))
        }
        return LV2PluginInfo(
            uri: String(cString: info.uri), name: String(cString: info.name), audioInputs: Int(info.audio_inputs),
            audioOutputs: Int(info.audio_outputs), unsupported: info.unsupported.map { String(cString: $0) },
            parameters: parameters)
    }

    /// The catalogue index of an LV2 plugin, nil when it is not installed: read from the one bundle
    /// that holds it (``LV2BundleIndex``), no other bundle loaded. A bundle that no longer holds it
    /// (changed without a new modification time) gets the index rebuilt once.
    static func lv2Index(_ uri: String) -> UInt32? {
        for rebuild in [false, true] {
            guard let bundle = LV2BundleIndex.bundle(for: uri, rebuild: rebuild) else { return nil }
            let index = oton_lv2_find_in_bundle(uri, bundle)
            if index >= 0 { return UInt32(index) }
        }
        return nil
    }

    public static func lv2Plugin(uri: String) -> LV2PluginInfo? { lv2Index(uri).flatMap(lv2Plugin(at:)) }

    /// The equalizer's bands as parameters.
    public static let equalizerParameters = Equalizer.bandNames.map {
        EffectParameter(symbol: $0, name: $0, range: Equalizer.gainRange, defaultValue: 0)
    }

    /// The parameters of an effect, or why it cannot run here.
    public static func parameters(of kind: EffectSettings.Kind) -> Result<[EffectParameter], EffectProblem> {
        switch kind {
        case .equalizer: return .success(equalizerParameters)
        case let .lv2(uri):
            guard let plugin = lv2Plugin(uri: uri) else { return .failure(.notInstalled(uri)) }
            if let reason = plugin.unsupported { return .failure(.unsupported(uri, reason: reason)) }
            return .success(plugin.parameters)
        }
    }

    /// Whether `value` may be set for `symbol` in an effect with these parameters.
    public static func check(_ symbol: String, _ value: Double, among parameters: [EffectParameter], effect: String) -> EffectProblem? {
        guard let parameter = parameters.first(where: { $0.symbol == symbol }) else {
            return .unknownParameter(effect: effect, symbol, known: parameters.map(\.symbol))
        }
        guard value.isFinite, parameter.range.contains(value) else {
            if let fractions = parameter.rateFractions?.range {
                return .outOfRateRange(effect: effect, symbol, value, parameter.range, fractions: fractions)
            }
            return .outOfRange(effect: effect, symbol, value, parameter.range)
        }
        return nil
    }

    /// Every problem of one effect's settings here: not installed, not hostable, an unknown
    /// parameter, a value out of range. Empty when it can run as written.
    public static func problems(of settings: EffectSettings) -> [EffectProblem] {
        switch parameters(of: settings.kind) {
        case let .failure(problem): return [problem]
        case let .success(parameters):
            return settings.parameters.keys.sorted().compactMap { check($0, settings.parameters[$0]!, among: parameters, effect: settings.name) }
        }
    }
}

/// What is wrong with an effect, in words that say what to do.
public enum EffectProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case notInstalled(String)
    case unsupported(String, reason: String)
    case unknownParameter(effect: String, String, known: [String])
    case outOfRange(effect: String, String, Double, ClosedRange<Double>)
    /// A sample-rate parameter's: the range in Hz at ``EffectParameter/referenceRate``, and as fractions of the rate.
    case outOfRateRange(effect: String, String, Double, ClosedRange<Double>, fractions: ClosedRange<Double>)
    case unknownEffect(String, known: [String])

    public var description: String {
        switch self {
        case let .notInstalled(uri):
            return tr(
                "no LV2 plugin \"{uri}\" is installed; `oton effects list` shows those that are (Debian ships them as swh-lv2, x42-plugins, lsp-plugins-lv2 …)",
                ["uri": uri])
        case let .unsupported(uri, reason):
            return tr("the LV2 plugin \"{uri}\" cannot run in oton: {reason}", ["uri": uri, "reason": reason])
        case let .unknownParameter(effect, symbol, known):
            let list = known.joined(separator: ", ")
            if let nearest = NearestWord.nearest(to: symbol, among: known) {
                return tr(
                    "effect {effect} has no parameter \"{parameter}\"; did you mean \"{nearest}\"? (known: {known})",
                    ["effect": effect, "parameter": symbol, "nearest": nearest, "known": list])
            }
            return tr("effect {effect} has no parameter \"{parameter}\" (known: {known})", ["effect": effect, "parameter": symbol, "known": list])
        case let .outOfRange(effect, symbol, value, range):
            return tr(
                "effect {effect}: {parameter} {value} is out of range; use {low} to {high}",
                [
                    "effect": effect, "parameter": symbol, "value": Self.number(value), "low": Self.number(range.lowerBound),
                    "high": Self.number(range.upperBound),
                ])
        case let .outOfRateRange(effect, symbol, value, range, fractions):
            return tr(
                "effect {effect}: {parameter} {value} Hz is out of range; use {low} to {high} Hz at 48 kHz (the range is {fraction_low} to {fraction_high} times the stream's sample rate)",
                [
                    "effect": effect, "parameter": symbol, "value": Self.number(value), "low": Self.number(range.lowerBound),
                    "high": Self.number(range.upperBound), "fraction_low": Self.number(fractions.lowerBound),
                    "fraction_high": Self.number(fractions.upperBound),
                ])
        case let .unknownEffect(name, known):
            return known.isEmpty
                ? tr("no effect \"{name}\": plugins.json's \"effects\" lists none", ["name": name])
                : tr("no effect \"{name}\" in the chain (known: {known})", ["name": name, "known": known.joined(separator: ", ")])
        }
    }

    /// "-6", "0.5", "-inf".
    public static func number(_ value: Double) -> String {
        if !value.isFinite { return value > 0 ? "inf" : "-inf" }
        return value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(format: "%g", value)
    }
}

extension EffectCatalogue {
    /// The chain as it can run here: each effect with a problem (not installed, an unknown parameter,
    /// a value out of range) is left out, and its problem said, so playback goes on without it.
    public static func usable(_ effects: [EffectSettings]) -> (effects: [EffectSettings], problems: [String]) {
        var kept: [EffectSettings] = []
        var problems: [String] = []
        for settings in effects {
            let found = Self.problems(of: settings)
            if found.isEmpty {
                kept.append(settings)
            } else {
                problems += found.map {
                    tr("effect {name} left out: {problem}; playback goes on without it", ["name": settings.name, "problem": $0.description])
                }
            }
        }
        return (kept, problems)
    }
}
