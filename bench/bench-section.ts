/** One section of `npm run bench`: a title and a measurement that returns its printed report. */
export interface BenchSection {
  title: string;
  run(options: { seconds: number }): Promise<string>;
}
