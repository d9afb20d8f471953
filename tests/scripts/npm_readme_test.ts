/**
 * The npm package's README (scripts/npm/readme.ts): the repository's, without the sections that tell
 * contributors which `deno task` to run; the build stops when such a command would still ship.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { npmReadme } from "../../scripts/npm/readme.ts";

const NAME = "@seed/service-client";
const INSTALL =
  `## Install\n\n\`\`\`sh\nnpm install ${NAME}\n\`\`\`\n\n## Errors\n\nRun \`deno task test\` to check.\n`;

describe("the npm README", () => {
  it("drops the sections before Install that hold deno task commands, and keeps the rest as is", () => {
    const readme =
      `# Title\n\nIntro.\n\n## Try it\n\n\`\`\`sh\ndeno task demo\n\`\`\`\n\n## Contents\n\n- a\n\n${INSTALL}`;
    assert.equal(npmReadme(readme, NAME), `# Title\n\nIntro.\n\n## Contents\n\n- a\n\n${INSTALL}`);
  });

  it("leaves the repository's README.md without deno task before its Install section", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const npm = npmReadme(readme, NAME);
    const install = npm.indexOf("\n## Install");
    assert.ok(install > 0, "the Install section is kept");
    assert.ok(!npm.slice(0, install).includes("deno task"), npm.slice(0, install));
    assert.ok(npm.startsWith(readme.slice(0, readme.indexOf("\n"))), "the title is kept");
    assert.equal(npm.slice(install), readme.slice(readme.indexOf("\n## Install")));
  });

  it("stops when a deno task command sits in the introduction", () => {
    const readme = `# Title\n\nRun \`deno task demo\`.\n\n${INSTALL}`;
    assert.throws(() => npmReadme(readme, NAME), /speaks of `deno task` before "## Install"/);
  });

  it("stops when there is no Install section naming the package", () => {
    assert.throws(
      () => npmReadme("# Title\n\n## Usage\n\nnpm install other\n", NAME),
      /no "## Install" section/,
    );
    assert.throws(
      () => npmReadme("# Title\n\n## Install\n\nnpm install other\n", NAME),
      /no "## Install" section/,
    );
  });
});
