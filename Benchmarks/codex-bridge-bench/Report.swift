import Foundation

/// The figures of one run, written as BENCHMARKS.md.
struct Report {
    struct Row {
        var figure, ours, peer, ratio, target: String
        var met: Bool?
    }

    var rows: [Row] = []
    var notes: [(String, String)] = []
    var pending: [(String, String)] = []

    mutating func add(_ figure: String, ours: String, peer: String, ratio: String, target: String, met: Bool?) {
        rows.append(Row(figure: figure, ours: ours, peer: peer, ratio: ratio, target: target, met: met))
    }

    mutating func note(_ figure: String, _ text: String) { notes.append((figure, text)) }

    mutating func fail(_ figure: String, _ reason: String) {
        add(figure, ours: "failed", peer: "—", ratio: "—", target: "—", met: false)
        pending.append((figure, reason))
    }

    func markdown(machine: String, bounds: String, conformance: String?, started: Date, seconds: Double) -> String {
        var out = "# Benchmarks\n\n"
        out += "Written by `Scripts/bench` (the `codex-bridge-bench` tool) from one run on \(ISO8601DateFormatter().string(from: started)) "
        out += String(format: "(%.0f s); every ratio compares figures of this same run. Rerun with `Scripts/bench`.\n\n", seconds)
        out += "Machine: \(machine)\n\n"
        out += "| figure | ours | peer / limit | ratio | target | met? |\n|---|---|---|---|---|---|\n"
        for row in rows {
            let met = row.met.map { $0 ? "yes" : "**no**" } ?? "—"
            out += "| \(row.figure) | \(row.ours) | \(row.peer) | \(row.ratio) | \(row.target) | \(met) |\n"
        }
        if !pending.isEmpty {
            out += "\n## Not measured\n\n"
            for (figure, reason) in pending { out += "- \(figure): \(reason)\n" }
        }
        out += "\n## How each figure is taken\n\n"
        for (figure, text) in notes { out += "- **\(figure)**: \(text)\n" }
        if let conformance {
            out += "\n## Hostile input: Autobahn|Testsuite\n\n"
            out += "`Scripts/conformance` in the same run (the fuzzing client against `codex-bridge-echo`: the bridge's own server "
            out +=
                "and connection handler in echo mode; 12.* and 13.*, permessage-deflate, excluded as the bridge offers no extension):\n\n"
            out += "> \(conformance)\n"
        }
        if !bounds.isEmpty { out += "\n## What bounds each figure\n\n" + bounds + "\n" }
        return out
    }
}
