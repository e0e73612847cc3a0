// Every test file: the temp dirs tempDir/tempHome made outside a test are removed after its last
// test (those made inside a test go when that test finishes; test/helpers.ts).
import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers.js';

afterAll(() => removeTempDirs());
