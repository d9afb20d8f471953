/**
 * The README the npm package ships: the repository's, without its sections for contributors (the
 * `deno task` commands to try the repository, and what they download), since npmjs.com shows the
 * README to users of the package, whose way in is the Install section.
 *
 * @module
 */

/** The section users start from: everything before it that speaks of `deno task` is for contributors. */
const INSTALL = "## Install";

/**
 * The npm package's README, made from the repository's.
 *
 * @param readme The text of the repository's README.md.
 * @param name The package name, which the Install section must name.
 * @returns The README without the level-2 sections before Install that hold `deno task` commands.
 * @throws {Error} When the README has no Install section naming the package, or when a `deno task`
 * command is left before it outside such a section (in the introduction, say): the build stops rather
 * than ship the contributors' commands to npm.
 */
export function npmReadme(readme: string, name: string): string {
  const install = readme.search(new RegExp(`^${INSTALL}\\s*$`, "m"));
  if (install < 0 || !readme.slice(install).includes(name)) {
    throw new Error(`Cannot write the npm README: README.md has no "${INSTALL}" section naming ${name}`);
  }
  // The part before Install, cut at each level-2 heading: [intro, "## A\n…", "## B\n…"].
  const sections = readme.slice(0, install).split(/^(?=## )/m);
  const kept = sections.filter((section, index) => index === 0 || !section.includes("deno task"));
  const head = kept.join("");
  if (head.includes("deno task")) {
    throw new Error(
      `Cannot write the npm README: README.md speaks of \`deno task\` before "${INSTALL}" outside a section of its own`,
    );
  }
  return head + readme.slice(install);
}
