/** The client's version: the repository's VERSION, as package.json has it (a test checks both). */
export const VERSION = "0.1.0";
