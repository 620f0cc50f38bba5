import Foundation
import NIOCore
import NIOPosix

/// Options of `codex-bridge-bench run`.
struct BenchOptions {
    var bridge = ".build/release/codex-bridge"
    var peerCodex: String?
    /// P2's Python reference: the interpreter and `Benchmarks/python_reference.py`.
    var pythonReference: [String]?
    var selfPath = CommandLine.arguments[0]
    var workDir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("codex-bridge-bench-\(getpid())")
    var out = "BENCHMARKS.md"
    var bounds: String?
    var machine = ""
    var figures: Set<String> = ["P1", "P2", "P3", "P4", "P5", "P6"]
    var quick = false
    /// Runs of each repeated figure (P1: default 3, 1 with `--quick`).
    var repeats: Int?
    /// The summary line of `Scripts/conformance` from the same run, for the report.
    var conformance: String?
}

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            """
            usage: codex-bridge-bench run [--bridge PATH] [--peer-codex PATH] [--python-reference PYTHON SCRIPT] [--out FILE] [--bounds FILE] [--machine TEXT]
                                          [--only P1,P2,...] [--quick] [--repeat N]
                                          [--conformance SUMMARY]
                   codex-bridge-bench app-server      (a fake codex for the bridge under test)

            """.utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
signal(SIGPIPE, SIG_IGN)
if arguments.first == "app-server" { exit(FakeCodex.run()) }
guard arguments.first == "run" else { usage() }
var options = BenchOptions()
options.selfPath = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { options.selfPath = resolved }
var rest = arguments.dropFirst()
while let flag = rest.popFirst() {
    func value() -> String {
        guard let next = rest.popFirst() else { usage() }
        return next
    }
    switch flag {
    case "--bridge": options.bridge = URL(fileURLWithPath: value()).standardizedFileURL.path
    case "--peer-codex": options.peerCodex = value()
    case "--python-reference": options.pythonReference = [value(), value()]
    case "--out": options.out = value()
    case "--bounds": options.bounds = value()
    case "--machine": options.machine = value()
    case "--only": options.figures = Set(value().split(separator: ",").map(String.init))
    case "--quick": options.quick = true
    case "--repeat":
        guard let n = Int(value()), n > 0 else { usage() }
        options.repeats = n
    case "--conformance": options.conformance = value()
    default: usage()
    }
}
try FileManager.default.createDirectory(at: options.workDir, withIntermediateDirectories: true)
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
var figures = Figures(options: options, group: group, report: Report())
let started = Date()
let steps: [(String, (inout Figures) throws -> Void)] = [
    ("P1", { try $0.handshake() }), ("P2", { try $0.relay() }), ("P3", { try $0.idleMemory() }),
    ("P4", { try $0.fanOut() }), ("P5", { try $0.replay() }), ("P6", { try $0.coldStart() }),
]
for (name, step) in steps where options.figures.contains(name) {
    figures.log("\(name)…")
    do {
        try step(&figures)
    } catch {
        figures.log("\(name) failed: \(error)")
        figures.report.fail(name, "\(error)")
    }
}
let bounds = options.bounds.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
let text = figures.report.markdown(
    machine: options.machine, bounds: bounds, conformance: options.conformance, started: started, seconds: Date().timeIntervalSince(started)
)
try text.write(toFile: options.out, atomically: true, encoding: .utf8)
print(text)
try? FileManager.default.removeItem(at: options.workDir)
try? group.syncShutdownGracefully()
