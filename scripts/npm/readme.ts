/**
 * The README the npm package ships: the repository's, with its opening for contributors (the
 * `deno task demo` and `deno task test` commands, and what the first `deno task` downloads)
 * replaced by the install command, since npmjs.com shows the README to users of the package.
 *
 * @module
 */

/** Where the contributors' opening ends: the first line of the introduction. */
const INTRODUCTION = "A typed GraphQL client for a managed GraphQL service";

/**
 * The npm package's README, made from the repository's.
 *
 * @param readme The text of the repository's README.md.
 * @param name The package name, for the install command.
 * @returns The README with its opening block (everything between the title and the introduction)
 * replaced by `npm install <name>`.
 * @throws {Error} When the README no longer starts with a title followed by a `deno task` block and
 * the introduction: the build stops rather than ship the contributors' commands to npm.
 */
export function npmReadme(readme: string, name: string): string {
  const titleEnd = readme.indexOf("\n");
  const introduction = readme.indexOf(INTRODUCTION);
  const opening = readme.slice(titleEnd + 1, introduction);
  if (!readme.startsWith("# ") || introduction < 0 || !opening.includes("deno task test")) {
    throw new Error(
      `Cannot write the npm README: README.md must open with its title, a \`deno task\` block, then "${INTRODUCTION}"`,
    );
  }
  return `${readme.slice(0, titleEnd + 1)}\n\`\`\`sh\nnpm install ${name}\n\`\`\`\n\n${
    readme.slice(introduction)
  }`;
}
