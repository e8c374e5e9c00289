/**
 * The privacy mechanisms the engine uses, in one import. Neighbouring datasets differ in one
 * record (replace-one), n is public, answers are normalized by n; each module states its
 * sensitivity and noise scale, and docs/privacy.md collects them.
 */
export { defaultDelta, deltaWarning, type RoundBudget, roundBudget, splitRho } from './accounting.ts';
export { gaussianMechanism, gaussianRho, gaussianSigma, roundSumToGrid, snapGrid } from './gaussian.ts';
export {
  gumbelScale,
  iterativeTopK,
  NoisyTopK,
  normalizeWeights,
  reportNoisyMax,
} from './selection.ts';
