/**
 * ADULT's public column sizes, as ../shared/datasets/adult/adult-domain.json declares them (the
 * benchmark format: every column integer-coded 0…size−1). Public: it holds no value of any record.
 * The planner's tests plan over it; the e2e flows' census table is coded into it.
 */
export const ADULT_DOMAIN: Readonly<Record<string, number>> = {
  age: 85,
  workclass: 9,
  fnlwgt: 100,
  'education-num': 16,
  'marital-status': 7,
  occupation: 15,
  relationship: 6,
  race: 5,
  sex: 2,
  'capital-gain': 100,
  'capital-loss': 100,
  'hours-per-week': 99,
  'native-country': 42,
  'income>50K': 2,
};
