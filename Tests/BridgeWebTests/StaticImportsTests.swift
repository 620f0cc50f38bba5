import Foundation
import Testing

@testable import BridgeWeb

@Suite struct StaticImportsTests {
    /// The rule as a regex (what the scan replaced, too slow for start-up): the scan must find exactly what it finds.
    nonisolated(unsafe) static let rule = #/(?:\bfrom\s*|^\s*import\s*)['"]\./([A-Za-z0-9._-]+\.js)['"]/#.anchorsMatchLineEndings()

    @Test func everyModuleOfTheAppIsReadAsTheRegexReadsIt() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: WebAssetsTests.assetsDirectory.path)
            .filter { $0.hasSuffix(".js") }
        #expect(names.count > 40)
        for name in names {
            let text = try String(contentsOf: WebAssetsTests.assetsDirectory.appendingPathComponent(name), encoding: .utf8)
            #expect(StaticImports.modules(in: text) == text.matches(of: Self.rule).map { String($0.output.1) }, "\(name)")
        }
    }

    @Test func staticFormsCountAndDynamicOrLookalikeOnesDoNot() {
        let text = """
            import { a } from './a.js';
            import {
              b,
            } from
              "./b.js";
              import './side.js';
            const later = () => import('./later.js');
            const s = 'import "./no.js"'; x.from('./no2.js'); afrom './no3.js'; import x from './x.mjs';
            export { c } from './c.js'
            """
        #expect(StaticImports.modules(in: text) == ["a.js", "b.js", "side.js", "c.js"])
        #expect(StaticImports.modules(in: "from './.js' from '../up.js' from './ok.js") == [])
    }
}
