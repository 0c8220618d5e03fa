import CGStreamer
import Foundation
import OtonEffects
import OtonEvents
import OtonSupport

/// A plugin's in-place filter (ABI 1.6 `oton_plugin_descriptor.filter`): the function and the
/// instance it is called with, and the plugin's id for the log. The instance outlives every
/// pipeline it is in (plugins are destroyed after the player stops).
public struct AudioFilter: @unchecked Sendable, Equatable {
    public typealias Function = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Float>?, Int, UInt32, UInt32) -> Void
    public let name: String
    public let function: Function
    public let context: UnsafeMutableRawPointer?

    public init(name: String, function: Function, context: UnsafeMutableRawPointer?) {
        self.name = name
        self.function = function
        self.context = context
    }

    public static func == (a: AudioFilter, b: AudioFilter) -> Bool { a.name == b.name && a.context == b.context }
}

/// What an effect of the running chain does now.
public struct EffectReading: Equatable, Sendable {
    public var name: String
    public var bypassed: Bool
    /// A plugin filter that overran its time budget (then bypassed for good).
    public var overran: Bool
    /// The stream's format does not fit it (an LV2 plugin of 2 channels on a 6-channel stream …): it passes the sound untouched.
    public var unusable: Bool
    public var buffers: UInt64
    public var busyNanoseconds: UInt64
    /// Samples it made that the safety guard changed: not finite (made silence) or far beyond full scale (clamped).
    public var guardedSamples: UInt64 = 0
    /// A plugin's filter (ABI 1.6), not an effect of plugins.json's list.
    public var isFilter = false
    /// A filter's time budget for the last buffer it got (half its duration; 0 before one).
    public var budgetNanoseconds: UInt64 = 0
}

/// The effects of one connection, in the pipeline between the PCM tap and the leveller:
///
///     audioconvert → F32LE interleaved → [equalizer-10bands | identity with an effect probe] … → (leveller, volume)
///
/// The equalizer is GStreamer's; an LV2 plugin or a plugin filter is an `OtonEffects` processor run
/// by a probe on an identity element's sink pad, in place. Parameters and bypasses change live
/// (`apply`): the equalizer's bands are set on the element, a processor's through atomics, so the
/// next buffer has them and nothing is rebuilt. The chain's shape (which effects) is fixed per connection.
/// Concurrency: the lets are immutable after init; GStreamer's properties and the processors' atomics are thread-safe.
final class EffectChain: @unchecked Sendable {
    private enum Stage {
        case equalizer(UnsafeMutablePointer<GstElement>?)
        case processor(OpaquePointer, parameters: [EffectParameter])
    }

    private var stages: [(name: String, stage: Stage, settings: EffectSettings?)] = []

    /// The effects that can run here (others were refused before: see ``EffectCatalogue/problems(of:)``), then the filters.
    init(effects: [EffectSettings], filters: [AudioFilter]) {
        for settings in effects {
            switch settings.kind {
            case .equalizer:
                stages.append((settings.name, .equalizer(nil), settings))
            case let .lv2(uri):
                guard let index = EffectCatalogue.lv2Index(uri), case let .success(parameters) = EffectCatalogue.parameters(of: settings.kind),
                    let effect = oton_effect_new_lv2(index)
                else { continue }
                stages.append((settings.name, .processor(effect, parameters: parameters), settings))
            }
        }
        for filter in filters {
            guard let effect = oton_effect_new_filter(filter.function, filter.context, filter.name) else { continue }
            stages.append((filter.name, .processor(effect, parameters: []), nil))
        }
    }

    deinit {
        for entry in stages { if case let .processor(effect, _) = entry.stage { oton_effect_unref(effect) } }
    }

    var isEmpty: Bool { stages.isEmpty }

    /// Adds the chain's elements before `output`; returns the element the audio enters it at.
    func build(before output: UnsafeMutablePointer<GstElement>, builder: ElementBuilder) throws(PipelineBuildError) -> UnsafeMutablePointer<GstElement> {
        let convert = try builder.make("audioconvert", "effects-convert", package: "gstreamer1.0-plugins-base")
        let format = try builder.make("capsfilter", "effects-format", package: "libgstreamer1.0-0")
        let caps = gst_caps_from_string("audio/x-raw,format=F32LE,layout=interleaved")
        otgst_set_caps(format, "caps", caps)
        otgst_caps_unref(caps)
        try builder.link(convert, format)
        var last = format
        for index in stages.indices {
            let element: UnsafeMutablePointer<GstElement>
            switch stages[index].stage {
            case .equalizer:
                element = try builder.make("equalizer-10bands", "effect-\(index)", package: "gstreamer1.0-plugins-good")
                stages[index].stage = .equalizer(element)
            case let .processor(effect, _):
                element = try builder.make("identity", "effect-\(index)", package: "libgstreamer1.0-0")
                if let pad = gst_element_get_static_pad(element, "sink") {
                    _ = oton_effect_attach(UnsafeMutableRawPointer(pad), effect)
                    gst_object_unref(UnsafeMutableRawPointer(pad))
                }
            }
            try builder.link(last, element)
            last = element
        }
        try builder.link(last, output)
        apply(stages.compactMap(\.settings))
        return convert
    }

    /// Sets each effect's parameters and bypass as `settings` say (matched by name); live.
    func apply(_ settings: [EffectSettings]) {
        for entry in stages {
            guard let wanted = settings.first(where: { $0.name == entry.name }) else { continue }
            switch entry.stage {
            case let .equalizer(element):
                guard let element else { continue }
                for (band, name) in Equalizer.bandNames.enumerated() {
                    otgst_set_double(element, "band\(band)", wanted.bypass ? 0 : (wanted.parameters[name] ?? 0))
                }
            case let .processor(effect, parameters):
                for (control, parameter) in parameters.enumerated() {
                    // Unset, a sample-rate parameter's default is its fraction times the stream's rate, which the processor knows.
                    if let value = wanted.parameters[parameter.symbol] {
                        _ = oton_effect_set_control(effect, UInt32(control), Float(value))
                    } else {
                        _ = oton_effect_reset_control(effect, UInt32(control))
                    }
                }
                oton_effect_set_bypass(effect, wanted.bypass ? 1 : 0)
            }
        }
    }

    var readings: [EffectReading] {
        stages.map { entry in
            switch entry.stage {
            case .equalizer:
                return EffectReading(
                    name: entry.name, bypassed: entry.settings?.bypass ?? false, overran: false, unusable: false, buffers: 0, busyNanoseconds: 0)
            case let .processor(effect, _):
                let reading = oton_effect_read(effect)
                return EffectReading(
                    name: entry.name, bypassed: reading.bypassed != 0, overran: reading.overran != 0, unusable: reading.unusable != 0,
                    buffers: reading.buffers, busyNanoseconds: reading.busy_ns, guardedSamples: reading.guarded, isFilter: entry.settings == nil,
                    budgetNanoseconds: reading.budget_ns)
            }
        }
    }

    /// The log line for an "oton-effect-overrun" element message (nil for any other message).
    static func overrunNotice(_ message: UnsafeMutablePointer<GstMessage>) -> String? {
        guard let structure = gst_message_get_structure(message), String(cString: gst_structure_get_name(structure)) == "oton-effect-overrun" else {
            return nil
        }
        let name = gst_structure_get_string(structure, "name").map { String(cString: $0) } ?? "?"
        var milliseconds = 0.0
        _ = gst_structure_get_double(structure, "ms", &milliseconds)
        return tr(
            "the audio filter of {plugin} took {ms} ms for one buffer, over its time budget: it is bypassed from now on, and playback goes on",
            ["plugin": name, "ms": String(format: "%.1f", milliseconds)])
    }
}
