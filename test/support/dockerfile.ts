import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerfileParser, type Env } from 'dockerfile-ast';

/** The project's Dockerfile, as text and parsed (dockerfile-ast), for the tests that check the image. */
export const dockerfileText = readFileSync(join(__dirname, '..', '..', 'Dockerfile'), 'utf8');
export const dockerfile = DockerfileParser.parse(dockerfileText);

/** The instructions of one build stage (`FROM … AS name`; the last, unnamed stage for `null`). */
export function stage(name: string | null) {
  const froms = dockerfile.getFROMs();
  const index = froms.findIndex((from) => from.getBuildStage() === name);
  const start = froms[index].getRange().start.line;
  const end = index + 1 < froms.length ? froms[index + 1].getRange().start.line : Infinity;
  return dockerfile.getInstructions().filter((instruction) => instruction.getRange().start.line > start && instruction.getRange().start.line < end);
}

/** The runtime stage's ENV: the environment every container of the image starts with. */
export function imageEnvironment(): Record<string, string> {
  const env = stage(null).find((instruction) => instruction.getKeyword() === 'ENV') as Env;
  return Object.fromEntries(env.getProperties().map((property) => [property.getName(), property.getValue() ?? '']));
}
