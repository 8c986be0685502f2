export default function Card() {
  return <div className="card">card v1</div>;
}
